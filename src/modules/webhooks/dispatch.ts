import { sql, type Kysely } from 'kysely';
import type { Db } from '../../db/connect.js';
import type { Database } from '../../db/types.js';
import { writeTransaction } from '../../db/write-transaction.js';
import { mayRead } from '../events/audience.js';
import { grantIndex, ownReader, readerFor } from './audience.js';
import { deliveriesRepo, type QueuedDelivery } from './deliveries-repo.js';
import { ALL_EVENTS } from './event-types.js';
import { decodeEventTypes, wants } from './rules.js';

/** Where the dispatcher stopped in the outbox (`meta` row). */
export const CURSOR_KEY = 'webhooks.dispatch_cursor';
const DEFAULT_BATCH = 500;
/** A replay reads at most this many events, matching or not. */
const REPLAY_SCAN_MAX = 50_000;
/** PostgreSQL: one dispatcher at a time; another worker skips its turn instead of waiting. */
const DISPATCH_LOCK = sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(7245110306) as locked`;

export interface OutboxRow {
  id: number;
  type: string;
  created_at: number;
  user_id: number | null;
  app_id: number | null;
  scope: string | null;
}

interface SubscriberRow {
  id: number;
  app_id: number | null;
  user_id: number | null;
  events: string;
  created_at: number;
}

/**
 * The deliveries a batch of events makes: one per (enabled webhook, event) when the webhook
 * subscribed to the type, existed when the event happened, and may receive it: what the credential
 * it stands for may read (events/audience.ts, through webhooks/audience.ts). The grants are read
 * once per batch, the readers built once per webhook or grant, not per pair.
 */
export async function matchDeliveries(
  db: Kysely<Database>,
  events: readonly OutboxRow[],
  webhooks: readonly SubscriberRow[],
  now: number,
): Promise<QueuedDelivery[]> {
  const subscribers = webhooks.map((row) => {
    const owner = { appId: row.app_id, userId: row.user_id };
    return {
      ...owner,
      id: row.id,
      reader: ownReader(owner),
      types: decodeEventTypes(row.events),
      createdAt: row.created_at,
    };
  });
  const privateUsers = [
    ...new Set(events.flatMap((e) => (e.user_id !== null && e.app_id === null ? [e.user_id] : []))),
  ];
  const apps = [...new Set(subscribers.flatMap((s) => (s.appId === null ? [] : [s.appId])))];
  const grants = await grantIndex(db, privateUsers, apps, now);
  const out: QueuedDelivery[] = [];
  for (const row of events) {
    const event = { type: row.type, userId: row.user_id, appId: row.app_id, scope: row.scope };
    for (const subscriber of subscribers) {
      if (row.created_at < subscriber.createdAt || !wants(subscriber.types, row.type)) continue;
      if (mayRead(readerFor(subscriber, event, grants), event))
        out.push({ webhookId: subscriber.id, eventId: row.id });
    }
  }
  return out;
}

const enabledWebhooks = (db: Kysely<Database>) =>
  db
    .selectFrom('webhooks')
    .select(['id', 'app_id', 'user_id', 'events', 'created_at'])
    .where('enabled', '=', 1);

async function cursorOf(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('meta').select('value').where('key', '=', CURSOR_KEY).executeTakeFirst();
  return row ? Number(row.value) : 0;
}

const outboxColumns = ['id', 'type', 'created_at', 'user_id', 'app_id', 'scope'] as const;

/**
 * The fan-out from the outbox to `webhook_deliveries`: reads events after its cursor (ids follow
 * commit order, see events/outbox.ts, so none is skipped), makes the deliveries, and moves the
 * cursor in the same transaction, so a crash repeats a batch at worst (the unique (webhook,
 * event) pair makes a repeat harmless). `hub worker` calls `dispatch` until it returns 0, then
 * sends what is due (delivery/).
 */
export function webhookDispatcher(db: Db, options: { batch?: number } = {}) {
  const batch = options.batch ?? DEFAULT_BATCH;
  const deliveries = deliveriesRepo(db.kysely);
  return {
    /** Dispatches one batch; returns how many events it read (0: caught up, or another worker's turn). */
    async dispatch(now: number): Promise<number> {
      // Caught up is the common case of a polling worker: tell it with two reads, without the
      // write transaction (on SQLite the write lock every other writer waits for).
      const waiting = await db.kysely
        .selectFrom('events')
        .select('id')
        .where('id', '>', await cursorOf(db.kysely))
        .limit(1)
        .executeTakeFirst();
      if (!waiting) return 0;
      return writeTransaction(db.kysely, async (trx) => {
        if (db.dialect === 'postgres') {
          const { rows } = await DISPATCH_LOCK.execute(trx);
          if (!rows[0]?.locked) return 0;
        }
        const cursor = await cursorOf(trx);
        const events = await trx
          .selectFrom('events')
          .select([...outboxColumns])
          .where('id', '>', cursor)
          .orderBy('id')
          .limit(batch)
          .execute();
        const last = events.at(-1);
        if (!last) return 0;
        const queued = await matchDeliveries(trx, events, await enabledWebhooks(trx).execute(), now);
        await deliveries.queue(trx, queued, now, false);
        await trx
          .insertInto('meta')
          .values({ key: CURSOR_KEY, value: String(last.id) })
          .onConflict((oc) => oc.column('key').doUpdateSet({ value: String(last.id) }))
          .execute();
        return events.length;
      });
    },

    /**
     * Queues again every event since `since` the webhook may receive (a replay), at most `max`;
     * existing deliveries go back to pending. Returns how many were queued and where it stopped.
     */
    replay(webhookId: number, since: number, now: number, max: number) {
      return writeTransaction(db.kysely, async (trx) => {
        const webhook = await enabledWebhooks(trx)
          .clearWhere()
          .where('id', '=', webhookId)
          .executeTakeFirstOrThrow();
        let after = 0;
        let queued = 0;
        let scanned = 0;
        let complete = false;
        let lastCreatedAt: number | null = null;
        const types = decodeEventTypes(webhook.events);
        while (queued < max && scanned < REPLAY_SCAN_MAX) {
          let query = trx
            .selectFrom('events')
            .select([...outboxColumns])
            .where('created_at', '>=', since)
            .where('id', '>', after);
          if (types[0] !== ALL_EVENTS) query = query.where('type', 'in', types);
          const events = await query
            .orderBy('id')
            .limit(Math.min(batch, max - queued))
            .execute();
          if (events.length === 0) {
            complete = true;
            break;
          }
          const matched = await matchDeliveries(trx, events, [{ ...webhook, created_at: 0 }], now);
          await deliveries.queue(trx, matched, now, true);
          queued += matched.length;
          scanned += events.length;
          const last = events.at(-1);
          after = last?.id ?? after;
          lastCreatedAt = last?.created_at ?? lastCreatedAt;
        }
        return { queued, complete, lastCreatedAt };
      });
    },
  };
}

export type WebhookDispatcher = ReturnType<typeof webhookDispatcher>;
