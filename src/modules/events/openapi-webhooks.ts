import { EVENT_ID_EXAMPLE } from './event-id.js';
import { EVENT_CATALOG, type EventDefinition } from './catalog.js';

/**
 * The OpenAPI 3.1 `webhooks` section, one entry per event type of the catalog: the POST a
 * subscribed endpoint receives, with the event object carrying that type's `data` schema and
 * example, the Standard Webhooks headers, and who receives it.
 */

const AUDIENCE_WORDS = {
  public: 'Public: every subscriber',
  user: 'Private: only apps acting for the user it concerns',
  app: 'Private: only the app it concerns (or the key owner who registered the webhook)',
} as const;

/** The words shown with a type: who receives it, the scope, and whether it is a firehose. */
export function audienceNote(definition: EventDefinition): string {
  const scope = definition.scope ? ` holding the \`${definition.scope}\` scope` : '';
  const volume = definition.highVolume
    ? ' **High volume**: one event per kill (or as often); prefer the batched variant.'
    : '';
  return `${AUDIENCE_WORDS[definition.audience]}${scope}.${volume}`;
}

const header = (name: string, description: string, example: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
  example,
});

const HEADERS = [
  header(
    'webhook-id',
    'The event id (`evt_` + 16 digits): the same on every retry; deduplicate on it.',
    EVENT_ID_EXAMPLE,
  ),
  header('webhook-timestamp', 'When this attempt was signed, in epoch seconds.', '1763661851'),
  header(
    'webhook-signature',
    'Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` with the secret (two signatures during a secret rotation, space-separated).',
    'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  ),
];

// The `event_` namespace of the operation-id rule (docs/development.md): `clan.member_joined`
// -> `event_clan_member_joined`.
const operationIdOf = (type: string) => `event_${type.replace(/\./g, '_')}`;

function webhookOf(definition: EventDefinition) {
  const example = {
    id: EVENT_ID_EXAMPLE,
    type: definition.type,
    created_at: '2026-11-20T18:04:11.000Z',
    data: definition.example,
  };
  return {
    post: {
      operationId: operationIdOf(definition.type),
      summary: definition.type,
      description: `${definition.description}\n\n${audienceNote(definition)}`,
      parameters: HEADERS,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['id', 'type', 'created_at', 'data'],
              properties: {
                id: {
                  type: 'string',
                  pattern: '^evt_\\d{16}$',
                  description: 'Event id, sortable',
                  examples: [EVENT_ID_EXAMPLE],
                },
                type: { type: 'string', const: definition.type, description: 'Event type' },
                created_at: {
                  type: 'string',
                  format: 'date-time',
                  description: 'When the change committed',
                  examples: [example.created_at],
                },
                data: definition.schema,
              },
            },
            example,
          },
        },
      },
      responses: {
        '2XX': { description: 'Received: any 2xx within 15 s acknowledges the delivery.' },
        default: {
          description:
            'Anything else (or no answer in 15 s) is retried with backoff; `410` disables the endpoint.',
        },
      },
    },
  };
}

export function eventWebhooks(): Record<string, ReturnType<typeof webhookOf>> {
  return Object.fromEntries([...EVENT_CATALOG.values()].map((d) => [d.type, webhookOf(d)]));
}
