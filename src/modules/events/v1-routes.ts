import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { App } from '../../http/app-types.js';
import { v1Route } from '../../http/v1-route.js';
import { EVENT_ID_EXAMPLE } from './event-id.js';
import type { EventsRepo } from './repo.js';
import type { EventStreams } from './stream/streams.js';
import {
  EventsPage,
  EventsQuery,
  EventStreamHeaders,
  EventStreamQuery,
  positionOf,
  readerOf,
  typesOf,
  type EventsPageBody,
} from './v1-schemas.js';

const VISIBILITY =
  'What a credential sees is the same on every channel (this route, the stream and its webhooks), and needs the event\u2019s scope: an OAuth access token sees public events, the events private to its user (so only an app the user authorized with the scope) and the events of its app; an API key (app context, public data only) sees public events and those about its owner\u2019s own webhooks, never its owner\u2019s private events.';

const STREAM_EXAMPLE = [
  'retry: 1000',
  ': stream open after evt_0000000000004710',
  '',
  `id: ${EVENT_ID_EXAMPLE}`,
  'event: match.ended',
  `data: {"id":"${EVENT_ID_EXAMPLE}","type":"match.ended","created_at":"2026-11-20T12:00:00.000Z","data":{"match_id":812,"server_id":3}}`,
  '',
  ': heartbeat',
  '',
  '',
].join('\n');

/** The stream's 200: `text/event-stream`, documented with a transcript of frames; the body is a stream. */
const StreamResponse = Type.Unsafe<Readable>({
  description: 'A Server-Sent Events stream (it stays open)',
  content: {
    'text/event-stream': {
      schema: Type.String({
        description:
          'SSE frames: `id:` the event id, `event:` its type, `data:` the event object as JSON; comment lines (`: heartbeat`) keep the connection alive.',
        examples: [STREAM_EXAMPLE],
      }),
      example: STREAM_EXAMPLE,
    },
  },
});

export function eventsV1Routes(repo: EventsRepo, streams: EventStreams) {
  return (app: App): void => {
    app.get(
      '/events',
      v1Route({
        operationId: 'v1_events_list',
        tag: 'Events',
        summary: 'Read events after a cursor (pull)',
        description: `The pull fallback of webhooks and the stream: events after \`after\` (from the oldest kept when omitted), oldest first, at most \`limit\`, optionally only \`types\`. Unlike other /v1 lists this one is paged by cursor, not by page number, because the outbox only grows at its end: \`meta.next_after\` is the cursor of the next page and \`meta.has_more\` says whether to ask again now. Events are kept 30 days. ${VISIBILITY} Any /v1 credential may call it.`,
        querystring: EventsQuery,
        response: EventsPage,
      }),
      async (request): Promise<EventsPageBody> => {
        const { limit } = request.query;
        const after = positionOf(request.query.after, { in: 'query', name: 'after' });
        const types = typesOf(request.query.types);
        const rows = await repo.after({
          after: after ?? 0,
          ...(types ? { types: [...types] } : {}),
          limit: limit + 1,
          reader: readerOf(request),
        });
        const data = rows.slice(0, limit).map((row) => row.event);
        return {
          data,
          meta: { next_after: data.at(-1)?.id ?? request.query.after ?? null, has_more: rows.length > limit },
        };
      },
    );

    const stream = v1Route({
      operationId: 'v1_events_stream',
      tag: 'Events',
      summary: 'Follow events live (Server-Sent Events)',
      description: `A \`text/event-stream\` of events as they commit, optionally only \`types\`: each frame's \`id\` is the event id, \`event\` its type and \`data\` the event object. Resumable: after a disconnect, reconnect with \`Last-Event-ID\` (EventSource does it by itself) or \`after\` and the stream sends every event after it, with no gap and no duplicate (30 days are kept); without either it starts from now. A comment line is sent every 15 s. A client that leaves more than 1 MiB unread, and every client when the server shuts down, gets a final comment and the end of the stream: reconnect with the last id. ${VISIBILITY} A stream is one request for the quota, however long it lasts.`,
      querystring: EventStreamQuery,
      response: StreamResponse,
    });
    app.get(
      '/events/stream',
      {
        ...stream,
        schema: {
          ...stream.schema,
          headers: EventStreamHeaders,
        },
      },
      async (request, reply) => {
        const header = request.headers['last-event-id'];
        const after =
          positionOf(typeof header === 'string' ? header : undefined, {
            in: 'header',
            name: 'Last-Event-ID',
          }) ?? positionOf(request.query.after, { in: 'query', name: 'after' });
        const types = typesOf(request.query.types);
        const connection = streams.connect(readerOf(request), types, after);
        // The opening lines are written before the response starts, so the client sees it open at once.
        connection.open().catch((err: unknown) => request.log.error({ err }, 'event stream failed'));
        return (
          reply
            .header('content-type', 'text/event-stream; charset=utf-8')
            .header('cache-control', 'no-store')
            // no proxy buffering (nginx), and nothing of ours compresses this route
            .header('x-accel-buffering', 'no')
            .send(connection.body)
        );
      },
    );
  };
}
