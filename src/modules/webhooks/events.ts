import { Type } from 'typebox';
import { defineEvent } from '../events/define.js';
import { At, Id, Text } from '../events/fields.js';

/** Events about an app's own webhooks, told only to the app (or the key owner) that registered them; emitted by the delivery worker. */

export const WEBHOOK_ENDPOINT_DISABLED = defineEvent({
  type: 'webhook.endpoint_disabled',
  description:
    'A webhook endpoint was disabled: it answered `410 Gone`, or every delivery failed for 5 days. Re-enable it with `PATCH /v1/webhooks/{id}`.',
  properties: {
    webhook_id: Id('Webhook', 12),
    url: Text('Its URL', 'https://example.com/hooks/hub'),
    reason: Type.Union([Type.Literal('gone'), Type.Literal('failing')], {
      description: '`gone`: it answered 410; `failing`: 5 days of failed deliveries',
      examples: ['gone'],
    }),
    disabled_at: At('When'),
  },
  example: {
    webhook_id: 12,
    url: 'https://example.com/hooks/hub',
    reason: 'gone',
    disabled_at: '2026-11-20T18:04:11.000Z',
  },
  scope: 'webhooks:read',
  audience: 'app',
});

export const WEBHOOK_EVENTS = [WEBHOOK_ENDPOINT_DISABLED];
