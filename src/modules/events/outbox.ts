import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../db/connect.js';
import type { Database } from '../../db/types.js';
import { afterCommit } from '../../db/write-transaction.js';
import type { Scope } from '../../http/scopes.js';
import { eventsCommitted } from './wake.js';

/** An event to tell, written by the transaction that makes the change (DESIGN.md, "Events"). */
export interface NewEvent {
  /** `resource.action`, from the catalog */
  type: string;
  data: Record<string, unknown>;
  /** private to apps acting for this user (their balance, their clan invites); absent: public */
  userId?: number | null;
  /** private to this app (its webhooks, its keys) */
  appId?: number | null;
  /** the scope a reader needs to see it */
  scope?: Scope | null;
  /** when the change happened, if not when the transaction writing it was asked (`now`): a batch of changes written together keeps each one's own time */
  at?: number;
}

/**
 * Every emitter takes this transaction-level lock before its events get their ids, and keeps it
 * until it commits, so ids are handed out in commit order: a reader that has seen id n never
 * sees a smaller id appear later. Without it, a transaction that took id 5 and commits after the
 * one that took id 6 would be skipped by every cursor already past 6. SQLite has one writer at a
 * time, which gives the same order.
 */
const OUTBOX_LOCK = sql`select pg_advisory_xact_lock(7245110305)`;

/**
 * Writes events inside the caller's transaction (`trx` must be one): nothing is told for a change
 * that rolls back, nothing is lost for one that commits. Emit last in the transaction, so the lock
 * is held only for the commit. Once the transaction has committed (`writeTransaction`), every
 * instance's streams and delivery workers are woken through the broadcast (wake.ts), so the events
 * go out at once rather than at the next poll. Returns the ids, in order.
 */
export async function emitEvents(
  trx: Kysely<Database>,
  dialect: Dialect,
  events: readonly NewEvent[],
  now: number,
): Promise<number[]> {
  if (events.length === 0) return [];
  if (dialect === 'postgres') await OUTBOX_LOCK.execute(trx);
  const ids: number[] = [];
  // a batch of 10,000 kills is 60,000 bound values: past what SQLite takes in one statement
  for (let i = 0; i < events.length; i += CHUNK) {
    const rows = await trx
      .insertInto('events')
      .values(
        events.slice(i, i + CHUNK).map((event) => ({
          type: event.type,
          created_at: event.at ?? now,
          data: JSON.stringify(event.data),
          user_id: event.userId ?? null,
          app_id: event.appId ?? null,
          scope: event.scope ?? null,
        })),
      )
      .returning('id')
      .execute();
    for (const row of rows) ids.push(row.id);
  }
  afterCommit(trx, eventsCommitted);
  return ids.sort((a, b) => a - b);
}

/** Events per insert statement (6 bound values each). */
const CHUNK = 1000;
