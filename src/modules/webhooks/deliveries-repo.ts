import type { Kysely } from 'kysely';
import type { Database, WebhookDeliveryStatus } from '../../db/types.js';

/** The delivery log and the attempts behind it are kept this long. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 3_600_000;
/** Attempts shown per delivery (the newest). */
export const ATTEMPTS_SHOWN = 10;

export interface AttemptRow {
  id: number;
  attempt: number;
  started_at: number;
  status_code: number | null;
  latency_ms: number | null;
  response_excerpt: string | null;
  error: string | null;
}

export interface DeliveryRow {
  id: number;
  webhook_id: number;
  event_id: number;
  event_type: string | null;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: number | null;
  last_status_code: number | null;
  last_latency_ms: number | null;
  last_response: string | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
  attempt_log: AttemptRow[];
}

/** What to send again: these events to this webhook, due now. */
export interface QueuedDelivery {
  webhookId: number;
  eventId: number;
}

const QUEUE_CHUNK = 200;
/** Deliveries dropped per statement by the sweep (short write transactions). */
const SWEEP_BATCH = 1000;

/** Delivery rows as the log reads them, and queueing them (the dispatcher, replays, redelivers). */
export function deliveriesRepo(db: Kysely<Database>) {
  const base = () =>
    db
      .selectFrom('webhook_deliveries as d')
      .leftJoin('events as e', 'e.id', 'd.event_id')
      .select([
        'd.id',
        'd.webhook_id',
        'd.event_id',
        'e.type as event_type',
        'd.status',
        'd.attempts',
        'd.next_attempt_at',
        'd.last_status_code',
        'd.last_latency_ms',
        'd.last_response',
        'd.last_error',
        'd.created_at',
        'd.delivered_at',
      ]);

  async function withAttempts<T extends { id: number }>(
    rows: T[],
  ): Promise<(T & { attempt_log: AttemptRow[] })[]> {
    if (rows.length === 0) return [];
    const attempts = await db
      .selectFrom('webhook_attempts')
      .select([
        'id',
        'delivery_id',
        'attempt',
        'started_at',
        'status_code',
        'latency_ms',
        'response_excerpt',
        'error',
      ])
      .where(
        'delivery_id',
        'in',
        rows.map((row) => row.id),
      )
      .orderBy('id', 'desc')
      .execute();
    const byDelivery = new Map<number, AttemptRow[]>();
    for (const { delivery_id, ...attempt } of attempts) {
      const list = byDelivery.get(delivery_id) ?? [];
      if (list.length < ATTEMPTS_SHOWN) list.push(attempt);
      byDelivery.set(delivery_id, list);
    }
    return rows.map((row) => ({ ...row, attempt_log: byDelivery.get(row.id) ?? [] }));
  }

  return {
    /**
     * Drops deliveries past the 30 days the log is kept, their attempts with them (cascade), a batch
     * per statement; returns how many. Any number of workers may sweep at once.
     */
    async sweep(now: number): Promise<number> {
      const before = now - DELIVERY_RETENTION_MS;
      let swept = 0;
      for (;;) {
        const result = await db
          .deleteFrom('webhook_deliveries')
          .where('id', 'in', (eb) =>
            eb
              .selectFrom('webhook_deliveries')
              .select('id')
              .where('created_at', '<', before)
              .orderBy('created_at')
              .limit(SWEEP_BATCH),
          )
          .executeTakeFirst();
        const n = Number(result.numDeletedRows);
        swept += n;
        if (n < SWEEP_BATCH) return swept;
      }
    },

    /** One webhook's deliveries of the last 30 days, newest first, each with its newest attempts. */
    async list(
      webhookId: number,
      filter: { status?: WebhookDeliveryStatus },
      page: { limit: number; offset: number },
      now: number,
    ): Promise<{ rows: DeliveryRow[]; total: number }> {
      const since = now - DELIVERY_RETENTION_MS;
      let rows = base().where('d.webhook_id', '=', webhookId).where('d.created_at', '>=', since);
      let count = db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('webhook_id', '=', webhookId)
        .where('created_at', '>=', since);
      if (filter.status) {
        rows = rows.where('d.status', '=', filter.status);
        count = count.where('status', '=', filter.status);
      }
      const [found, total] = await Promise.all([
        rows.orderBy('d.id', 'desc').limit(page.limit).offset(page.offset).execute(),
        count.executeTakeFirstOrThrow(),
      ]);
      return { rows: await withAttempts(found), total: total.n };
    },

    async find(webhookId: number, deliveryId: number): Promise<DeliveryRow | undefined> {
      const row = await base()
        .where('d.webhook_id', '=', webhookId)
        .where('d.id', '=', deliveryId)
        .executeTakeFirst();
      return row ? (await withAttempts([row]))[0] : undefined;
    },

    /**
     * Makes deliveries due now. New (webhook, event) pairs get a pending row; `again` also puts an
     * existing row back to pending with a fresh run of retries (a redeliver, a replay), else an
     * existing row is left alone (the dispatcher running over events twice).
     */
    async queue(
      trx: Kysely<Database>,
      items: readonly QueuedDelivery[],
      now: number,
      again: boolean,
    ): Promise<void> {
      for (let i = 0; i < items.length; i += QUEUE_CHUNK) {
        const chunk = items.slice(i, i + QUEUE_CHUNK);
        await trx
          .insertInto('webhook_deliveries')
          .values(
            chunk.map((item) => ({
              webhook_id: item.webhookId,
              event_id: item.eventId,
              status: 'pending' as const,
              next_attempt_at: now,
              claimed_until: null,
              claimed_by: null,
              last_status_code: null,
              last_latency_ms: null,
              last_response: null,
              last_error: null,
              created_at: now,
              delivered_at: null,
            })),
          )
          .onConflict((oc) =>
            again
              ? oc.columns(['webhook_id', 'event_id']).doUpdateSet({
                  status: 'pending',
                  attempts: 0,
                  next_attempt_at: now,
                  claimed_until: null,
                  claimed_by: null,
                })
              : oc.columns(['webhook_id', 'event_id']).doNothing(),
          )
          .execute();
      }
    },

    /** Puts one delivery back to pending, due now; false when the webhook has no such delivery. */
    async redeliver(webhookId: number, deliveryId: number, now: number): Promise<boolean> {
      const result = await db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', attempts: 0, next_attempt_at: now, claimed_until: null, claimed_by: null })
        .where('webhook_id', '=', webhookId)
        .where('id', '=', deliveryId)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}

export type DeliveriesRepo = ReturnType<typeof deliveriesRepo>;
