import type { webhooks } from './generated/schema.js';
import { HubError } from './errors.js';

/** Every event the hub sends, by its `type` (the document's `webhooks` section). */
export type HubEventMap = {
  [T in keyof webhooks]: webhooks[T]['post'] extends {
    requestBody?: { content: { 'application/json': infer E } };
  }
    ? E
    : never;
};
export type HubEventType = keyof HubEventMap;
/** One event: narrow it with `switch (event.type)`. */
export type HubEvent = HubEventMap[HubEventType];

/** A delivery that is not the hub's: bad or missing signature, stale timestamp, not JSON. */
export class WebhookVerificationError extends HubError {
  override name = 'WebhookVerificationError';
}

export interface WebhookVerifierOptions {
  /** how far the delivery's timestamp may be from now, either way (default 300 s, the standard's) */
  toleranceSeconds?: number;
  /** the clock, epoch milliseconds */
  now?: () => number;
}

/** WebCrypto's `CryptoKey`, named without the DOM library */
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

type HeaderSource = Headers | Record<string, string | readonly string[] | undefined>;

const header = (headers: HeaderSource, name: string): string | undefined => {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name] ?? headers[name.toLowerCase()];
  return typeof value === 'string' ? value : value?.[0];
};

const base64ToBytes = (text: string): Uint8Array<ArrayBuffer> => {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
};

/**
 * Verifies deliveries per Standard Webhooks (HMAC-SHA256 over `id.timestamp.body`) with WebCrypto,
 * in Node and browsers. Give it every secret that may sign: during a rotation the hub signs with
 * the old and the new secret (two signatures), and either verifies.
 */
export class WebhookVerifier {
  private readonly keys: Promise<HmacKey[]>;
  private readonly toleranceSeconds: number;
  private readonly now: () => number;

  constructor(secrets: string | readonly string[], options: WebhookVerifierOptions = {}) {
    const list = typeof secrets === 'string' ? [secrets] : [...secrets];
    if (list.length === 0) throw new TypeError('at least one webhook secret is needed');
    this.keys = Promise.all(
      list.map((secret) =>
        crypto.subtle.importKey(
          'raw',
          base64ToBytes(secret.startsWith('whsec_') ? secret.slice(6) : secret),
          { name: 'HMAC', hash: 'SHA-256' },
          false,
          ['verify'],
        ),
      ),
    );
    this.toleranceSeconds = options.toleranceSeconds ?? 300;
    this.now = options.now ?? Date.now;
  }

  /** Checks the delivery's signature and timestamp; throws WebhookVerificationError when either fails. */
  async verify(body: string | Uint8Array, headers: HeaderSource): Promise<void> {
    const id = header(headers, 'webhook-id');
    const timestamp = header(headers, 'webhook-timestamp');
    const signatures = header(headers, 'webhook-signature');
    if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook headers');
    if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('invalid webhook-timestamp');
    const age = Math.abs(this.now() / 1000 - Number(timestamp));
    if (age > this.toleranceSeconds)
      throw new WebhookVerificationError('webhook-timestamp too old or too new');
    const bodyBytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
    const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
    const signed = new Uint8Array(prefix.length + bodyBytes.length);
    signed.set(prefix);
    signed.set(bodyBytes, prefix.length);
    const candidates = signatures
      .split(' ')
      .filter((s) => s.startsWith('v1,'))
      .map((s) => s.slice(3));
    for (const key of await this.keys)
      for (const candidate of candidates) {
        let mac: Uint8Array<ArrayBuffer>;
        try {
          mac = base64ToBytes(candidate);
        } catch {
          continue;
        }
        // crypto.subtle.verify compares in constant time
        if (await crypto.subtle.verify('HMAC', key, mac, signed)) return;
      }
    throw new WebhookVerificationError('no signature matches');
  }

  /** Verifies the delivery, then parses it into the event of its type. */
  async parse(body: string | Uint8Array, headers: HeaderSource): Promise<HubEvent> {
    await this.verify(body, headers);
    const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
    let event: unknown;
    try {
      event = JSON.parse(text);
    } catch (error) {
      throw new WebhookVerificationError('the delivery is not JSON', { cause: error });
    }
    if (typeof event !== 'object' || event === null || typeof (event as { type?: unknown }).type !== 'string')
      throw new WebhookVerificationError('the delivery is not an event');
    return event as HubEvent;
  }
}
