import { Type, type Static } from 'typebox';
import type { FastifyRequest } from 'fastify';
import { ProblemError } from '../../http/problem.js';
import { isEventType } from './catalog.js';
import { EVENT_ID_EXAMPLE, parseEventId } from './event-id.js';
import type { EventReader } from './audience.js';

const EVENT_ID_FORM = 'an event id: `evt_` and 16 digits';
const TYPES_FORM = 'a comma-separated list of event types (`resource.action`, see GET /v1/events/types)';

export const EventObjectSchema = Type.Object(
  {
    id: Type.String({
      description:
        'Sortable, unique event id; the same value is the webhook `webhook-id`, the SSE `id` and the pull cursor.',
      examples: [EVENT_ID_EXAMPLE],
    }),
    type: Type.String({ description: 'The event type, `resource.action`.', examples: ['match.ended'] }),
    created_at: Type.String({
      format: 'date-time',
      description: 'When the change that emitted the event committed (ISO 8601 UTC).',
      examples: ['2026-11-20T12:00:00.000Z'],
    }),
    data: Type.Record(Type.String(), Type.Unknown(), {
      description: 'The payload; its schema per type is in the OpenAPI `webhooks` section.',
      examples: [{ match_id: 812, server_id: 3, game: 'cs2', winner: 'ct', score: { ct: 13, t: 9 } }],
    }),
  },
  { description: 'An event, as every channel sends it (webhook body, SSE data, pull item)' },
);
export type EventObjectBody = Static<typeof EventObjectSchema>;

const AfterQuery = Type.String({
  description: `${EVENT_ID_FORM}; only events after it. Omit it to start from the oldest event kept (pull) or from now (stream).`,
  pattern: '^evt_[0-9]{16}$',
  examples: [EVENT_ID_EXAMPLE],
});

const TypesQuery = Type.String({
  description: `${TYPES_FORM}; only events of these types. Omit it for every type the credential may see.`,
  pattern: '^[a-z0-9_.]+(,[a-z0-9_.]+)*$',
  maxLength: 2000,
  examples: ['match.ended,player.level_up'],
});

export const EventsQuery = Type.Object({
  after: Type.Optional(AfterQuery),
  types: Type.Optional(TypesQuery),
  limit: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 100,
    description: 'Events per page, 1-1000 (default 100).',
    examples: [100],
  }),
});

export const EventStreamQuery = Type.Object({
  after: Type.Optional(AfterQuery),
  types: Type.Optional(TypesQuery),
});

export const EventStreamHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({
      description: `${EVENT_ID_FORM}. Sent by EventSource when it reconnects: the stream resumes right after it (it wins over \`after\`).`,
      pattern: '^evt_[0-9]{16}$',
      examples: [EVENT_ID_EXAMPLE],
    }),
  ),
});

export const EventsPage = Type.Object(
  {
    data: Type.Array(EventObjectSchema),
    meta: Type.Object(
      {
        next_after: Type.Union(
          [
            Type.String({
              description: 'The cursor for the next page: pass it as `after`.',
              examples: [EVENT_ID_EXAMPLE],
            }),
            Type.Null({ description: 'No event to page after yet (nothing visible and no `after` given).' }),
          ],
          { examples: [EVENT_ID_EXAMPLE] },
        ),
        has_more: Type.Boolean({
          description: 'More events are waiting after this page: ask again at once with `after=next_after`.',
          examples: [false],
        }),
      },
      {
        description:
          'Cursor paging: the outbox grows at its end, so pages are walked by cursor, not by number',
      },
    ),
  },
  { description: 'One page of events, oldest first' },
);
export type EventsPageBody = Static<typeof EventsPage>;

/** The outbox position of a cursor, or a 400 naming the parameter (16 digits beyond 2^53). */
export function positionOf(
  id: string | undefined,
  where: { in: 'query' | 'header'; name: string },
): number | undefined {
  if (id === undefined) return undefined;
  const position = parseEventId(id);
  if (position !== undefined) return position;
  const reason = `must be ${EVENT_ID_FORM} that this service issued (got ${JSON.stringify(id)})`;
  throw new ProblemError('invalid_parameter', `${where.in} parameter '${where.name}' ${reason}`, {
    invalidParams: [{ in: where.in, name: where.name, reason }],
  });
}

/** The `types` filter as a set, or a 400 naming the first unknown type. */
export function typesOf(list: string | undefined): ReadonlySet<string> | undefined {
  if (list === undefined) return undefined;
  const types = new Set(list.split(','));
  for (const type of types) {
    if (isEventType(type)) continue;
    const reason = `must be ${TYPES_FORM}; ${JSON.stringify(type)} is not an event type`;
    throw new ProblemError('invalid_parameter', `query parameter 'types' ${reason}`, {
      invalidParams: [{ in: 'query', name: 'types', reason }],
    });
  }
  return types;
}

/** Who reads (audience.ts): an API key as its owner's key, an OAuth token as its app, for its user if any. */
export function readerOf(request: FastifyRequest): EventReader {
  const principal = request.principal;
  if (!principal) throw new Error('an events route ran without a credential');
  return {
    appId: principal.appId,
    userId: principal.userId,
    keyOwnerId: principal.keyId === null ? null : (request.apiKey?.userId ?? null),
    scopes: principal.scopes,
  };
}
