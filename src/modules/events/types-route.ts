import { Type, type Static } from 'typebox';
import type { App } from '../../http/app-types.js';
import { StringEnum } from '../../http/schemas.js';
import { v1Route } from '../../http/v1-route.js';
import { SCOPE_NAMES } from '../../http/scopes.js';
import { EVENT_CATALOG, type EventAudience } from './catalog.js';
import { audienceNote } from './openapi-webhooks.js';

const EventTypeSchema = Type.Object(
  {
    type: Type.String({ description: 'Event type, `resource.action`', examples: ['kill.recorded'] }),
    description: Type.String({
      description: 'What it tells, and who receives it',
      examples: ['One counted kill, told when its round is settled.'],
    }),
    scope: Type.Union([StringEnum(SCOPE_NAMES), Type.Null()], {
      description: 'The scope a reader needs (null: none beyond the audience)',
      examples: ['stats:read'],
    }),
    audience: StringEnum(['public', 'user', 'app'] satisfies EventAudience[], {
      description:
        '`public`: every subscriber with the scope; `user`: only apps acting for the user it concerns; `app`: only the app it concerns',
      examples: ['public'],
    }),
    high_volume: Type.Boolean({
      description: 'One event per kill (or as often): prefer its batched variant',
      examples: [true],
    }),
    schema: Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'JSON Schema (2020-12) of the event’s `data`',
        examples: [{ type: 'object', properties: {} }],
      },
    ),
    example: Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'An example `data`',
        examples: [{ server_id: 3 }],
      },
    ),
  },
  { description: 'One event type of the catalog' },
);

export const EventTypesResponse = Type.Object(
  { data: Type.Array(EventTypeSchema) },
  { description: 'Every event type, in catalog order' },
);
export type EventTypesBody = Static<typeof EventTypesResponse>;

/** The catalog as JSON, built once: it changes only with a deploy. */
const body = (): EventTypesBody => ({
  data: [...EVENT_CATALOG.values()].map((d) => ({
    type: d.type,
    description: `${d.description} ${audienceNote(d)}`,
    scope: d.scope,
    audience: d.audience,
    high_volume: d.highVolume === true,
    schema: JSON.parse(JSON.stringify(d.schema)) as Record<string, unknown>,
    example: d.example as Record<string, unknown>,
  })),
});

/** `GET /v1/events/types`: the event catalog, for any credential (public, cached). */
export function eventTypesRoute() {
  const catalog = body();
  return (app: App): void => {
    app.get(
      '/events/types',
      v1Route({
        operationId: 'v1_events_types_list',
        tag: 'Events',
        summary: 'List event types (preview)',
        description:
          'Every event type the hub tells through webhooks, the event stream and `GET /v1/events`: its name (`resource.action`), what it tells, who may receive it (audience and scope), whether it is high volume, the JSON Schema of its `data` and an example. The same types, with the full event object, are in this document\u2019s `webhooks` section. Any credential may call it (an API key or an OAuth token, no scope); the answer is the same for everyone and cached.',
        cache: true,
        response: EventTypesResponse,
      }),
      (): EventTypesBody => catalog,
    );
  };
}
