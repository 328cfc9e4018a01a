import { Webhook } from 'standardwebhooks';

/** The three Standard Webhooks headers of one delivery. */
export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Signs a body per Standard Webhooks (https://www.standardwebhooks.com/): `v1,` + base64 of
 * HMAC-SHA256(secret bytes, `${id}.${timestamp}.${body}`). During a rotation every live secret
 * signs, the signatures space-separated, so a receiver holding either the old or the new secret
 * accepts the delivery. The HMAC is the `standardwebhooks` library's own (DESIGN.md: the
 * well-kept library of the field), so we sign exactly as receivers verify.
 *
 * `secrets` are `whsec_` + base64; `nowMs` is the sending time (injected for tests).
 */
export function signWebhook(
  eventId: string,
  body: string,
  secrets: readonly string[],
  nowMs: number,
): SignatureHeaders {
  if (secrets.length === 0) throw new Error('a webhook is signed with at least one secret');
  const seconds = Math.floor(nowMs / 1000);
  const at = new Date(seconds * 1000);
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(seconds),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(eventId, at, body)).join(' '),
  };
}
