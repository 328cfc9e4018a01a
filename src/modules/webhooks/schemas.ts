import { Type, type Static } from 'typebox';
import { StringEnum, Timestamp, toIso } from '../../http/schemas.js';
import { ListOf, One, PageQuery } from '../../http/v1-route.js';
import { formatEventId } from '../events/event-id.js';
import type { DeliveryRow } from './deliveries-repo.js';
import type { WebhookRow } from './repo.js';
import { decodeEventTypes, DESCRIPTION_MAX, EVENTS_MAX, URL_MAX } from './rules.js';

const Url = Type.String({
  minLength: 1,
  maxLength: URL_MAX,
  description:
    'where events are POSTed: an absolute `https` URL (plain `http` and private addresses only where the deployment allows private targets)',
  examples: ['https://example.com/hooks/hub'],
});
const Events = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  minItems: 1,
  maxItems: EVENTS_MAX,
  description: 'event types to receive (see `GET /v1/events/types`), or `["*"]` for every type',
  examples: [['match.ended', 'player.level_up']],
});
const Description = Type.String({
  maxLength: DESCRIPTION_MAX,
  description:
    'a note for yourself; surrounding whitespace is removed, and an empty or whitespace-only note is stored as null',
  examples: ['production receiver'],
});
/** Shown once and never stored in plaintext, so a replay of the answer cannot show it again. */
const Secret = Type.Union([Type.String(), Type.Null()], {
  description:
    'the Standard Webhooks signing secret (`whsec_` + base64 of 32 bytes); shown only in this answer, keep it safe. `null` in a replay of this answer (`Idempotent-Replayed: true`): the secret is not kept with stored answers, so if the first answer was lost, rotate the secret (`POST /v1/webhooks/{id}/rotate-secret`) for a new one',
  examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
});

export const WebhookSchema = Type.Object(
  {
    id: Type.Integer({ examples: [12] }),
    url: Url,
    events: Events,
    description: Type.Union([Description, Type.Null()]),
    enabled: Type.Boolean({ description: 'false: no event is sent to it', examples: [true] }),
    disabled_reason: Type.Union([StringEnum(['gone', 'failing', 'owner'] as const), Type.Null()], {
      description:
        'why it is off: `gone` (it answered 410), `failing` (5 days of failed deliveries), `owner` (turned off with PATCH); null when enabled',
    }),
    failing_since: Type.Union([Timestamp('first failure of the current run of failures'), Type.Null()]),
    created_at: Timestamp('when it was registered'),
    updated_at: Timestamp('last change'),
  },
  { $id: 'Webhook', title: 'Webhook', description: 'A webhook endpoint; never its secret' },
);
export type WebhookBody = Static<typeof WebhookSchema>;

export const webhookBody = (row: WebhookRow): WebhookBody => ({
  id: row.id,
  url: row.url,
  events: decodeEventTypes(row.events),
  description: row.description,
  enabled: row.enabled === 1,
  disabled_reason:
    row.enabled === 1 ? null : ((row.disabled_reason ?? 'owner') as 'gone' | 'failing' | 'owner'),
  failing_since: row.failing_since === null ? null : toIso(row.failing_since),
  created_at: toIso(row.created_at),
  updated_at: toIso(row.updated_at),
});

const AttemptSchema = Type.Object({
  attempt: Type.Integer({
    minimum: 1,
    description: 'which try of the current run (1 = first)',
    examples: [1],
  }),
  started_at: Timestamp('when it was sent'),
  status_code: Type.Union([Type.Integer({ examples: [200] }), Type.Null()], {
    description: 'the receiver\u2019s HTTP status; null when no answer came',
  }),
  latency_ms: Type.Union([Type.Integer({ minimum: 0, examples: [84] }), Type.Null()]),
  response_excerpt: Type.Union([
    Type.String({ description: 'the first 1 KiB of the answer\u2019s body', examples: ['ok'] }),
    Type.Null(),
  ]),
  error: Type.Union([Type.String({ examples: ['timeout'] }), Type.Null()], {
    description: 'why no answer came (timeout, connection_failed, forbidden_address, ...)',
  }),
});

export const DELIVERY_STATUSES = ['pending', 'delivering', 'succeeded', 'failed', 'dead'] as const;

export const DeliverySchema = Type.Object(
  {
    id: Type.Integer({ examples: [345] }),
    event_id: Type.String({
      description: 'the event sent (its `webhook-id`)',
      examples: ['evt_0000000000000042'],
    }),
    event_type: Type.Union([Type.String({ examples: ['match.ended'] }), Type.Null()], {
      description: 'null once the event left the 30-day outbox',
    }),
    status: StringEnum(DELIVERY_STATUSES, {
      description:
        '`pending` (due or waiting for a retry), `delivering` (being sent), `succeeded` (a 2xx), `failed` (the last try failed, more to come), `dead` (retries exhausted or the endpoint disabled)',
    }),
    attempts: Type.Integer({ minimum: 0, description: 'tries of the current run', examples: [1] }),
    next_attempt_at: Type.Union([Timestamp('next try'), Type.Null()]),
    last_status_code: Type.Union([Type.Integer({ examples: [200] }), Type.Null()]),
    last_latency_ms: Type.Union([Type.Integer({ minimum: 0, examples: [84] }), Type.Null()]),
    last_response: Type.Union([
      Type.String({ description: 'the first 1 KiB of the last answer\u2019s body', examples: ['ok'] }),
      Type.Null(),
    ]),
    last_error: Type.Union([Type.String({ examples: ['timeout'] }), Type.Null()]),
    created_at: Timestamp('when the event was queued for this webhook'),
    delivered_at: Type.Union([Timestamp('when a try succeeded'), Type.Null()]),
    attempt_log: Type.Array(AttemptSchema, { description: 'the newest tries first (at most 10)' }),
  },
  {
    $id: 'WebhookDelivery',
    title: 'WebhookDelivery',
    description: 'One event sent (or to send) to one webhook',
  },
);
export type DeliveryBody = Static<typeof DeliverySchema>;

const isoOrNull = (ms: number | null) => (ms === null ? null : toIso(ms));

export const deliveryBody = (row: DeliveryRow): DeliveryBody => ({
  id: row.id,
  event_id: formatEventId(row.event_id),
  event_type: row.event_type,
  status: row.status,
  attempts: row.attempts,
  next_attempt_at: isoOrNull(row.next_attempt_at),
  last_status_code: row.last_status_code,
  last_latency_ms: row.last_latency_ms,
  last_response: row.last_response,
  last_error: row.last_error,
  created_at: toIso(row.created_at),
  delivered_at: isoOrNull(row.delivered_at),
  attempt_log: row.attempt_log.map((a) => ({
    attempt: a.attempt,
    started_at: toIso(a.started_at),
    status_code: a.status_code,
    latency_ms: a.latency_ms,
    response_excerpt: a.response_excerpt,
    error: a.error,
  })),
});

export const WebhookParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2147483647, description: 'webhook ID', examples: [12] }),
});
export const DeliveryParams = Type.Object({
  id: WebhookParams.properties.id,
  delivery_id: Type.Integer({
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'delivery ID',
    examples: [345],
  }),
});

export const WebhooksQuery = Type.Object(PageQuery);
export const DeliveriesQuery = Type.Object({
  status: Type.Optional(StringEnum(DELIVERY_STATUSES, { description: 'only deliveries in this state' })),
  ...PageQuery,
});

export const CreateWebhookBody = Type.Object(
  { url: Url, events: Events, description: Type.Optional(Description) },
  {
    additionalProperties: false,
    examples: [{ url: 'https://example.com/hooks/hub', events: ['match.ended'], description: 'production' }],
  },
);
export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    enabled: Type.Optional(
      Type.Boolean({ description: 'false turns it off; true turns it on again after it was disabled' }),
    ),
  },
  { additionalProperties: false, minProperties: 1, examples: [{ enabled: true }] },
);
export const ReplayBody = Type.Object(
  {
    since: Type.String({
      format: 'date-time',
      description: 'queue every event since this time (within the last 30 days)',
      examples: ['2026-11-20T18:00:00.000Z'],
    }),
  },
  { additionalProperties: false },
);

export const WebhookResponse = One(Type.Ref('Webhook'), 'The webhook');
export const WebhooksResponse = ListOf(Type.Ref('Webhook'), 'The caller\u2019s webhooks, oldest first');
export const CreatedWebhookResponse = One(
  Type.Object({ webhook: Type.Ref('Webhook'), secret: Secret }),
  'The new webhook and its signing secret, shown only this once',
);
export const RotatedSecretResponse = One(
  Type.Object({
    secret: Secret,
    previous_expires_at: Timestamp('the previous secret signs beside the new one until then'),
  }),
  'The new signing secret, shown only this once',
);
export const DeliveriesResponse = ListOf(
  Type.Ref('WebhookDelivery'),
  'Deliveries of the last 30 days, newest first',
);
export const DeliveryResponse = One(Type.Ref('WebhookDelivery'), 'The delivery, queued to be sent again');
export const ReplayResponse = One(
  Type.Object({
    queued: Type.Integer({ minimum: 0, description: 'deliveries queued', examples: [12] }),
    complete: Type.Boolean({
      description: 'false when the bound was reached: replay again from `next_since` for the rest',
      examples: [true],
    }),
    next_since: Type.Union([Timestamp('where to resume a replay that was not complete'), Type.Null()]),
  }),
  'What the replay queued',
);
export const NoContent = Type.Null({ description: 'Deleted; no body.' });
