import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../../../db/connect.js';
import type { Database, WebhookDeliveryStatus } from '../../../db/types.js';
import { writeTransaction } from '../../../db/write-transaction.js';
import { formatEventId } from '../../events/event-id.js';
import { eventOf } from '../../events/define.js';
import { emitEvents } from '../../events/outbox.js';
import { WEBHOOK_ENDPOINT_DISABLED } from '../events.js';
import { updateDeliveries } from './batch-update.js';
import type { AttemptOutcome } from './schedule.js';
import type { SendResult } from './send.js';

/** A delivery a worker has claimed, with what it needs to send it. */
export interface DeliveryJob {
  id: number;
  webhookId: number;
  eventId: number;
  /** attempts already made */
  attempts: number;
  url: string;
  enabled: boolean;
  /** the signed body; null when the event is no longer kept (30 days) */
  body: string | null;
  /** newest first: the current secret, then a rotated one still in its overlap */
  secrets: string[];
}

export interface ClaimOptions {
  now: number;
  /** claim at most this many */
  limit: number;
  /** how long others leave a claimed delivery alone: longer than a send can take */
  leaseMs: number;
  workerId: string;
  /** how many more deliveries each webhook may have in flight here (absent: `perWebhook`) */
  room: (webhookId: number) => number;
  /** webhooks with no room left, left out of the search so they cannot fill it */
  full: readonly number[];
}

/** One finished attempt, as the worker hands it back. */
export interface AttemptRecord {
  job: DeliveryJob;
  startedAt: number;
  result: SendResult;
  outcome: AttemptOutcome;
}

/** Deliveries that ended without an attempt: the webhook is disabled, or the event is gone. */
export interface SkippedRecord {
  job: DeliveryJob;
  status: Extract<WebhookDeliveryStatus, 'dead' | 'failed'>;
  error: string;
}

/** A webhook this batch disabled (410, or 5 days of failures). */
export interface DisabledWebhook {
  webhookId: number;
  reason: 'gone' | 'failing';
}

const ERROR_MAX = 500;
const clip = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);
const STATUS_AFTER: Record<AttemptOutcome['kind'], WebhookDeliveryStatus> = {
  succeeded: 'succeeded',
  retry: 'pending',
  failed: 'failed',
  gone: 'dead',
};
/** Candidates read per claim, per delivery wanted: room to skip over a webhook that is full. */
const SEARCH_FACTOR = 4;

/**
 * The event body every channel sends (events/repo.ts `EventObject`), built from the stored JSON
 * text of `data` without parsing it again.
 */
function eventBody(id: number, type: string, createdAt: number, data: string): string {
  return `{"id":"${formatEventId(id)}","type":${JSON.stringify(type)},"created_at":"${new Date(createdAt).toISOString()}","data":${data}}`;
}

/** SQL of delivery: claiming due rows, loading them, recording attempts and disabling endpoints. */
export function deliveryRepo(db: Db) {
  const { kysely, dialect } = db;

  async function load(trx: Kysely<Database>, ids: number[], now: number): Promise<DeliveryJob[]> {
    if (ids.length === 0) return [];
    const rows = await trx
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
      .leftJoin('events as e', 'e.id', 'd.event_id')
      .select([
        'd.id',
        'd.webhook_id',
        'd.event_id',
        'd.attempts',
        'w.url',
        'w.enabled',
        'e.type',
        'e.created_at',
        'e.data',
      ])
      .where('d.id', 'in', ids)
      .orderBy('d.id')
      .execute();
    const webhookIds = [...new Set(rows.map((r) => r.webhook_id))];
    const secrets = await trx
      .selectFrom('webhook_secrets')
      .select(['webhook_id', 'secret'])
      .where('webhook_id', 'in', webhookIds)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .orderBy('id', 'desc')
      .execute();
    const secretsOf = new Map<number, string[]>();
    for (const s of secrets) secretsOf.set(s.webhook_id, [...(secretsOf.get(s.webhook_id) ?? []), s.secret]);
    return rows.map((r) => ({
      id: r.id,
      webhookId: r.webhook_id,
      eventId: r.event_id,
      attempts: r.attempts,
      url: r.url,
      enabled: r.enabled === 1,
      body:
        r.type === null || r.created_at === null || r.data === null
          ? null
          : eventBody(r.event_id, r.type, r.created_at, r.data),
      secrets: secretsOf.get(r.webhook_id) ?? [],
    }));
  }

  /** Disables a webhook that is still enabled, ends its pending deliveries and tells its owner. */
  async function disable(
    trx: Transaction<Database>,
    webhookId: number,
    reason: 'gone' | 'failing',
    now: number,
  ) {
    const webhook = await trx
      .updateTable('webhooks')
      .set({ enabled: 0, disabled_reason: reason, updated_at: now })
      .where('id', '=', webhookId)
      .where('enabled', '=', 1)
      .returning(['id', 'url', 'app_id', 'user_id'])
      .executeTakeFirst();
    if (!webhook) return false;
    await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'dead', next_attempt_at: null, last_error: `endpoint disabled (${reason})` })
      .where('webhook_id', '=', webhookId)
      .where('status', '=', 'pending')
      .execute();
    const owner = webhook.app_id !== null ? { appId: webhook.app_id } : { userId: webhook.user_id ?? 0 };
    await emitEvents(
      trx,
      dialect,
      [
        eventOf(
          WEBHOOK_ENDPOINT_DISABLED,
          { webhook_id: webhook.id, url: webhook.url, reason, disabled_at: new Date(now).toISOString() },
          owner,
        ),
      ],
      now,
    );
    return true;
  }

  return {
    /**
     * Claims due deliveries for this worker: due (`next_attempt_at`), not claimed by a live lease,
     * oldest first, at most `room(webhook)` per webhook. PostgreSQL: `FOR UPDATE SKIP LOCKED`, so
     * workers claiming at once take different rows; SQLite: the write transaction is IMMEDIATE,
     * one claimer at a time. A claim is a lease: a worker that dies leaves rows that are due again
     * once `claimed_until` passes.
     */
    async claim(options: ClaimOptions): Promise<DeliveryJob[]> {
      const { now, limit, workerId } = options;
      if (limit <= 0) return [];
      const due = (trx: Kysely<Database>) => {
        const search = trx
          .selectFrom('webhook_deliveries')
          .select(['id', 'webhook_id'])
          .where('next_attempt_at', '<=', now)
          .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]));
        return options.full.length > 0 ? search.where('webhook_id', 'not in', [...options.full]) : search;
      };
      // an idle worker polls: look before taking the write lock (SQLite has one for everybody)
      if (!(await due(kysely).limit(1).executeTakeFirst())) return [];
      const ids = await writeTransaction(kysely, async (trx) => {
        let search = due(trx)
          .orderBy('next_attempt_at')
          .orderBy('id')
          .limit(limit * SEARCH_FACTOR);
        if (dialect === 'postgres') search = search.forUpdate().skipLocked();
        const candidates = await search.execute();
        const taken = new Map<number, number>();
        const chosen: number[] = [];
        for (const c of candidates) {
          const n = taken.get(c.webhook_id) ?? 0;
          if (n >= options.room(c.webhook_id)) continue;
          taken.set(c.webhook_id, n + 1);
          chosen.push(c.id);
          if (chosen.length >= limit) break;
        }
        if (chosen.length === 0) return chosen;
        await trx
          .updateTable('webhook_deliveries')
          .set({ status: 'delivering', claimed_until: now + options.leaseMs, claimed_by: workerId })
          .where('id', 'in', chosen)
          .execute();
        return chosen;
      });
      return load(kysely, ids, now);
    },

    /**
     * Records finished attempts in one transaction: the attempt log, the delivery's state, the
     * webhook's run of failures, and the disabling of a webhook that answered 410 or has failed
     * for 5 days (with its `webhook.endpoint_disabled` event, in the same transaction). A delivery
     * this worker no longer holds (deleted with its webhook, or claimed again after the lease ran
     * out) is left as it is.
     */
    async record(
      workerId: string,
      attempts: readonly AttemptRecord[],
      skipped: readonly SkippedRecord[],
      now: number,
      failingTooLong: (failingSince: number | null) => boolean,
    ): Promise<DisabledWebhook[]> {
      if (attempts.length === 0 && skipped.length === 0) return [];
      return writeTransaction(kysely, async (trx) => {
        const ids = [...attempts.map((a) => a.job.id), ...skipped.map((s) => s.job.id)];
        let held = trx
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('id', 'in', ids)
          .where('claimed_by', '=', workerId);
        if (dialect === 'postgres') held = held.forUpdate();
        const mine = new Set((await held.execute()).map((r) => r.id));
        const recorded = attempts.filter((a) => mine.has(a.job.id));
        if (recorded.length > 0)
          await trx
            .insertInto('webhook_attempts')
            .values(
              recorded.map(({ job, startedAt, result }) => ({
                delivery_id: job.id,
                webhook_id: job.webhookId,
                attempt: job.attempts + 1,
                started_at: startedAt,
                status_code: result.status ?? null,
                latency_ms: result.latencyMs,
                response_headers: result.error === undefined ? JSON.stringify(result.headers) : null,
                response_excerpt: result.error === undefined ? result.bodyExcerpt : null,
                error:
                  result.error === undefined ? null : clip(`${result.error}: ${result.message}`, ERROR_MAX),
              })),
            )
            .execute();
        await updateDeliveries(
          trx,
          recorded.map(({ job, result, outcome }) => ({
            id: job.id,
            status: STATUS_AFTER[outcome.kind],
            attempts: job.attempts + 1,
            nextAttemptAt: outcome.kind === 'retry' ? outcome.at : null,
            statusCode: result.status ?? null,
            latencyMs: result.latencyMs,
            response: result.error === undefined ? result.bodyExcerpt : null,
            error:
              result.error === undefined
                ? result.ok
                  ? null
                  : `HTTP ${result.status}`
                : clip(`${result.error}: ${result.message}`, ERROR_MAX),
            deliveredAt: outcome.kind === 'succeeded' ? now : null,
          })),
        );
        for (const { job, status, error } of skipped.filter((s) => mine.has(s.job.id)))
          await trx
            .updateTable('webhook_deliveries')
            .set({ status, next_attempt_at: null, claimed_until: null, claimed_by: null, last_error: error })
            .where('id', '=', job.id)
            .execute();

        // each webhook's run of failures: a success ends it, a failure starts it if none is running
        const byWebhook = new Map<number, { ok: boolean; gone: boolean }>();
        for (const { job, outcome } of recorded) {
          const seen = byWebhook.get(job.webhookId) ?? { ok: false, gone: false };
          if (outcome.kind === 'succeeded') seen.ok = true;
          if (outcome.kind === 'gone') seen.gone = true;
          byWebhook.set(job.webhookId, seen);
        }
        const disabled: DisabledWebhook[] = [];
        const recovered = [...byWebhook].flatMap(([id, seen]) => (seen.ok && !seen.gone ? [id] : []));
        if (recovered.length > 0)
          await trx
            .updateTable('webhooks')
            .set({ failing_since: null })
            .where('id', 'in', recovered)
            .where('failing_since', 'is not', null)
            .execute();
        for (const [webhookId, { ok, gone }] of byWebhook) {
          if (gone) {
            if (await disable(trx, webhookId, 'gone', now)) disabled.push({ webhookId, reason: 'gone' });
            continue;
          }
          if (ok) continue;
          const row = await trx
            .updateTable('webhooks')
            .set((eb) => ({ failing_since: eb.fn.coalesce('failing_since', eb.val(now)) }))
            .where('id', '=', webhookId)
            .returning('failing_since')
            .executeTakeFirst();
          if (row && failingTooLong(row.failing_since) && (await disable(trx, webhookId, 'failing', now)))
            disabled.push({ webhookId, reason: 'failing' });
        }
        return disabled;
      });
    },
  };
}

export type DeliveryRepo = ReturnType<typeof deliveryRepo>;
