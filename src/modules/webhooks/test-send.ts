import { randomBytes } from 'node:crypto';
import { ProblemError } from '../../http/problem.js';
import { EVENT_CATALOG } from '../events/catalog.js';
import type { EventObject } from '../events/repo.js';
import { sendSignedWebhook, type SendResult } from './delivery/send.js';
import type { WebhooksRepo } from './repo.js';
import { parseWebhookUrl, type TargetPolicy } from './rules.js';
import { newWebhookSecret } from './secret.js';

export interface WebhookTestInput {
  event_type: string;
  /** a URL to send to, signed with `secret` (or a new secret, returned) ... */
  url?: string | undefined;
  secret?: string | undefined;
  /** ... or one of the account's webhooks, signed with its live secrets */
  webhook_id?: number | undefined;
}

export interface WebhookTestResult {
  event: EventObject;
  url: string;
  /** the secret a URL test was signed with, when it was made for this test (none for a webhook) */
  secret: string | null;
  ok: boolean;
  status: number | null;
  latency_ms: number;
  headers: Record<string, string>;
  body_excerpt: string;
  error: string | null;
  error_message: string | null;
}

const SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/;

/** A sample of the type: the catalog's example, with a test id (never an outbox id). */
export function sampleEvent(type: string, now: number): EventObject {
  const definition = EVENT_CATALOG.get(type);
  if (!definition) throw new ProblemError('unknown_event_type', `Unknown event type: ${type}.`);
  return {
    id: `evt_test_${randomBytes(8).toString('hex')}`,
    type,
    created_at: new Date(now).toISOString(),
    data: definition.example as Record<string, unknown>,
  };
}

const outcome = (result: SendResult) =>
  result.error === undefined
    ? {
        ok: result.ok,
        status: result.status,
        latency_ms: result.latencyMs,
        headers: result.headers,
        body_excerpt: result.bodyExcerpt,
        error: null,
        error_message: null,
      }
    : {
        ok: false,
        status: null,
        latency_ms: result.latencyMs,
        headers: {},
        body_excerpt: '',
        error: result.error,
        error_message: result.message,
      };

/**
 * The portal's webhook test: sends a signed sample of an event type to a URL or to one of the
 * account's webhooks through the delivery sender (SSRF guard, signing, 15 s timeout, no redirects)
 * and reports what the receiver answered. Nothing is stored.
 */
export function webhookTester(repo: WebhooksRepo, options: { now: () => number } & TargetPolicy) {
  return async function testWebhook(accountId: number, input: WebhookTestInput): Promise<WebhookTestResult> {
    if ((input.url === undefined) === (input.webhook_id === undefined))
      throw new ProblemError('unprocessable', 'Give either `url` or `webhook_id`.');
    const event = sampleEvent(input.event_type, options.now());
    let url: string;
    let secrets: string[];
    let shown: string | null = null;
    if (input.webhook_id !== undefined) {
      const webhook = await repo.findForAccount(accountId, input.webhook_id);
      if (!webhook)
        throw new ProblemError('webhook_not_found', `There is no webhook with id ${input.webhook_id}.`);
      url = webhook.url;
      secrets = await repo.liveSecrets(webhook.id, options.now());
    } else {
      url = parseWebhookUrl(input.url ?? '', options.allowPrivateTargets).href;
      if (input.secret !== undefined && !SECRET_PATTERN.test(input.secret))
        throw new ProblemError('unprocessable', 'A secret is `whsec_` followed by base64 of 24 to 64 bytes.');
      shown = input.secret === undefined ? newWebhookSecret() : null;
      secrets = [input.secret ?? shown ?? ''];
    }
    const body = JSON.stringify(event);
    const result = await sendSignedWebhook({
      url,
      body,
      eventId: event.id,
      secrets,
      allowPrivate: options.allowPrivateTargets,
      ...(options.resolve ? { resolve: options.resolve } : {}),
    });
    return { event, url, secret: shown, ...outcome(result) };
  };
}

export type WebhookTester = ReturnType<typeof webhookTester>;
