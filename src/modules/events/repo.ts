import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';
import { formatEventId } from './event-id.js';

/** The event object every channel sends (webhook body, SSE data, pull item). */
export interface EventObject {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

/** Who is reading: public events, plus those private to this user (with the scope) or this app. */
export interface EventReader {
  userId: number | null;
  appId: number | null;
  scopes: ReadonlySet<string>;
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
export interface OutboxEvent {
  position: number;
  event: EventObject;
  userId: number | null;
  appId: number | null;
  scope: string | null;
}

/**
 * The visibility rule of `after()`, for events already read: public, or private to this reader's
 * user or app, and needing no scope or one the reader holds. The stream reads each event once per
 * process and filters it per connection with this instead of querying per connection.
 */
export const visibleTo = (reader: EventReader, row: Omit<OutboxEvent, 'position' | 'event'>): boolean =>
  (row.userId === null || row.userId === reader.userId) &&
  (row.appId === null || row.appId === reader.appId) &&
  (row.scope === null || reader.scopes.has(row.scope));

const RETENTION_MS = 30 * 24 * 3_600_000;

const toEvent = (row: { id: number; type: string; created_at: number; data: string }): EventObject => ({
  id: formatEventId(row.id),
  type: row.type,
  created_at: new Date(row.created_at).toISOString(),
  data: JSON.parse(row.data) as Record<string, unknown>,
});

export function eventsRepo(db: Kysely<Database>) {
  return {
    /** Events after a position, oldest first, as the reader may see them. */
    async after({
      after,
      types,
      limit,
      reader,
    }: EventQuery): Promise<{ position: number; event: EventObject }[]> {
      let query = db
        .selectFrom('events')
        .select(['id', 'type', 'created_at', 'data'])
        .where('id', '>', after)
        .where((eb) =>
          reader.userId === null
            ? eb('user_id', 'is', null)
            : eb.or([eb('user_id', 'is', null), eb('user_id', '=', reader.userId)]),
        )
        .where((eb) =>
          reader.appId === null
            ? eb('app_id', 'is', null)
            : eb.or([eb('app_id', 'is', null), eb('app_id', '=', reader.appId)]),
        );
      const scopes = [...reader.scopes];
      query = query.where((eb) =>
        scopes.length === 0
          ? eb('scope', 'is', null)
          : eb.or([eb('scope', 'is', null), eb('scope', 'in', scopes)]),
      );
      if (types && types.length > 0) query = query.where('type', 'in', [...types]);
      const rows = await query.orderBy('id').limit(limit).execute();
      return rows.map((row) => ({ position: row.id, event: toEvent(row) }));
    },

    /** Every event after a position, oldest first, whoever may see it (filter with `visibleTo`). */
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
