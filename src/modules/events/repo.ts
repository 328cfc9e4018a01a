import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';
import { mayRead, type EventAddress, type EventReader } from './audience.js';
import { formatEventId } from './event-id.js';

/** The event object every channel sends (webhook body, SSE data, pull item). */
export interface EventObject {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

export interface EventQuery {
  /** outbox position to read after (0: from the oldest kept) */
  after: number;
  /** only these types (none: every type) */
  types?: readonly string[];
  limit: number;
  reader: EventReader;
}

/** An outbox row with who may see it: what the stream's shared poll hands to every connection. */
export interface OutboxEvent extends EventAddress {
  position: number;
  event: EventObject;
}

const RETENTION_MS = 30 * 24 * 3_600_000;

const toEvent = (row: { id: number; type: string; created_at: number; data: string }): EventObject => ({
  id: formatEventId(row.id),
  type: row.type,
  created_at: new Date(row.created_at).toISOString(),
  data: JSON.parse(row.data) as Record<string, unknown>,
});

export function eventsRepo(db: Kysely<Database>) {
  return {
    /**
     * Events after a position, oldest first, that the reader may see (audience.ts decides). The
     * query narrows the rows to those the rule could let through (public, or for the reader's
     * user, key owner or app, with a scope it holds); the rule itself then drops the few it does
     * not (a user's `user` events read with their API key), and a page short of them reads on.
     */
    async after({
      after,
      types,
      limit,
      reader,
    }: EventQuery): Promise<{ position: number; event: EventObject }[]> {
      const users = [reader.userId, reader.keyOwnerId].filter((id): id is number => id !== null);
      const scopes = [...reader.scopes];
      const out: { position: number; event: EventObject }[] = [];
      let cursor = after;
      for (;;) {
        let query = db
          .selectFrom('events')
          .select(['id', 'type', 'created_at', 'data', 'user_id', 'app_id', 'scope'])
          .where('id', '>', cursor)
          .where((eb) =>
            users.length === 0
              ? eb('user_id', 'is', null)
              : eb.or([eb('user_id', 'is', null), eb('user_id', 'in', users)]),
          )
          .where((eb) =>
            reader.appId === null
              ? eb('app_id', 'is', null)
              : eb.or([eb('app_id', 'is', null), eb('app_id', '=', reader.appId)]),
          )
          .where((eb) =>
            scopes.length === 0
              ? eb('scope', 'is', null)
              : eb.or([eb('scope', 'is', null), eb('scope', 'in', scopes)]),
          );
        if (types && types.length > 0) query = query.where('type', 'in', [...types]);
        const want = limit - out.length;
        const rows = await query.orderBy('id').limit(want).execute();
        for (const row of rows) {
          if (mayRead(reader, { type: row.type, userId: row.user_id, appId: row.app_id, scope: row.scope }))
            out.push({ position: row.id, event: toEvent(row) });
        }
        const last = rows.at(-1);
        if (rows.length < want || out.length >= limit || !last) return out;
        cursor = last.id;
      }
    },

    /** Every event after a position, oldest first, whoever may see it (filter with `mayRead`). */
    async allAfter(after: number, limit: number): Promise<OutboxEvent[]> {
      const rows = await db
        .selectFrom('events')
        .select(['id', 'type', 'created_at', 'data', 'user_id', 'app_id', 'scope'])
        .where('id', '>', after)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((row) => ({
        position: row.id,
        event: toEvent(row),
        type: row.type,
        userId: row.user_id,
        appId: row.app_id,
        scope: row.scope,
      }));
    },

    /** The newest position (0 when the outbox is empty). */
    async latest(): Promise<number> {
      const row = await db
        .selectFrom('events')
        .select((eb) => eb.fn.max('id').as('max'))
        .executeTakeFirst();
      return row?.max ?? 0;
    },

    /** Drops events older than the 30 days the pull route and replays promise. */
    async sweep(now: number): Promise<number> {
      const result = await db
        .deleteFrom('events')
        .where('created_at', '<', now - RETENTION_MS)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type EventsRepo = ReturnType<typeof eventsRepo>;
