import { Type } from 'typebox';
import type { App } from '../../http/app-types.js';
import { PORTAL_BODY_LIMIT } from '../portal/routes.js';
import { portalOperation } from '../portal/schemas.js';
import type { PortalAccount } from '../portal/session-auth.js';
import type { WebhookTester } from './test-send.js';

const WebhookTestBody = Type.Object(
  {
    event_type: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'the event type to send a sample of (`GET /v1/events/types`)',
      examples: ['match.ended'],
    }),
    webhook_id: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2147483647,
        description: 'one of your webhooks (or of your apps): sent to its URL, signed with its secrets',
      }),
    ),
    url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description: 'or any https URL (give exactly one of `webhook_id` and `url`)',
        examples: ['https://example.com/hooks/hub'],
      }),
    ),
    secret: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'with `url`: the `whsec_…` secret to sign with; absent, a new one is made and returned',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ event_type: 'match.ended', url: 'https://example.com/hooks/hub' }],
  },
);

const WebhookTestResponse = Type.Object(
  {
    event: Type.Object(
      {
        id: Type.String({
          description: 'a test id (`evt_test_…`), never an outbox id',
          examples: ['evt_test_1f2e3d4c5b6a7980'],
        }),
        type: Type.String({ examples: ['match.ended'] }),
        created_at: Type.String({ format: 'date-time' }),
        data: Type.Record(Type.String(), Type.Unknown(), { description: 'the catalog example of the type' }),
      },
      { description: 'the body sent, signed' },
    ),
    url: Type.String({ description: 'where it was sent' }),
    secret: Type.Union([Type.String(), Type.Null()], {
      description:
        'the secret made for a `url` test without one, to verify the signature with; null otherwise',
    }),
    ok: Type.Boolean({ description: 'the receiver answered 2xx' }),
    status: Type.Union([Type.Integer({ examples: [200] }), Type.Null()], {
      description: 'the receiver\u2019s HTTP status (a redirect is not followed); null without an answer',
    }),
    latency_ms: Type.Integer({ minimum: 0, examples: [84] }),
    headers: Type.Record(Type.String(), Type.String(), {
      description: 'the answer\u2019s headers (at most 50)',
    }),
    body_excerpt: Type.String({ description: 'the first 1 KiB of the answer\u2019s body' }),
    error: Type.Union([Type.String({ examples: ['timeout'] }), Type.Null()], {
      description:
        'why no answer came: `invalid_url`, `dns_failed`, `forbidden_address` (a private or metadata address), `timeout` (15 s), `connection_failed`, `tls_failed`',
    }),
    error_message: Type.Union([Type.String(), Type.Null()]),
  },
  { description: 'What the receiver answered' },
);

const signedIn = (account: PortalAccount | undefined): PortalAccount => {
  if (!account) throw new Error('portal route without session hook');
  return account;
};

/** `POST /api-platform/developer/webhook-test`: the test page's JSON route (session + CSRF). */
export function webhookTestRoute(tester: WebhookTester) {
  return (app: App): void => {
    app.post(
      '/webhook-test',
      {
        bodyLimit: PORTAL_BODY_LIMIT,
        schema: portalOperation({
          operationId: 'developer_webhook_test_send',
          summary: 'Send a test webhook',
          description:
            'Sends a signed sample of an event type (the catalog\u2019s example, with a test id) to one of your webhooks or to a URL, exactly as deliveries are sent (Standard Webhooks signature, the URL resolved and private addresses refused, 15 s timeout, redirects not followed), and returns what the receiver answered: status, latency, headers and the first 1 KiB of the body. Nothing is stored or retried. `422 unknown_event_type` for a type not in the catalog, `422 invalid_webhook_url` for a URL that is not https, `404 webhook_not_found` for a webhook that is not yours.',
          body: WebhookTestBody,
          response: { 200: WebhookTestResponse },
          errors: [
            'invalid_body',
            'unauthenticated',
            'csrf_failed',
            'webhook_not_found',
            'unprocessable',
            'unknown_event_type',
            'invalid_webhook_url',
            'payload_too_large',
            'unsupported_media_type',
          ],
        }),
      },
      (request) => tester(signedIn(request.account).id, request.body),
    );
  };
}
