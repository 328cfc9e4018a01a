import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db } from '../../../db/connect.js';
import { formatEventId } from '../../events/event-id.js';
import {
  deliveryRepo,
  type AttemptRecord,
  type DeliveryJob,
  type DisabledWebhook,
  type SkippedRecord,
} from './repo.js';
import { afterAttempt, failingTooLong } from './schedule.js';
import { DEFAULT_TIMEOUT_MS, sendSignedWebhook } from './send.js';
import type { Resolver } from './ssrf.js';

export interface DeliveryWorkerOptions {
  /** WEBHOOKS_ALLOW_PRIVATE_TARGETS */
  allowPrivate: boolean;
  /** deliveries in flight at once in this worker */
  concurrency?: number;
  /** deliveries in flight at once to one webhook, so one slow receiver cannot take every slot */
  perWebhook?: number;
  /** how often to look for due deliveries when nothing nudged the worker */
  pollMs?: number;
  timeoutMs?: number;
  /** how long a claim keeps other workers away: longer than a send can take */
  leaseMs?: number;
  /**
   * Subscribes to the wake-ups (events committed on any instance: events/wake.ts), each a nudge;
   * returns the unsubscribe. Taken at start, dropped at stop.
   */
  wakeUps?: (listener: () => void) => () => void;
  /** the fan-out from the outbox to deliveries (webhooks/dispatch.ts), run before each claim */
  dispatch?: (now: number) => Promise<number>;
  onError?: (err: unknown) => void;
  onDisabled?: (webhook: DisabledWebhook) => void;
  now?: () => number;
  random?: () => number;
  resolve?: Resolver;
  workerId?: string;
}

export interface DeliveryWorker {
  readonly workerId: string;
  /** One full round for tests: dispatch, claim what is due, send it all, record it all. */
  runOnce(): Promise<{ claimed: number; sent: number; skipped: number; disabled: DisabledWebhook[] }>;
  /** Look for work now instead of at the next poll (after a commit that emitted events). */
  nudge(): void;
  /** Stops claiming; waits for the sends in flight (at most `graceMs`) and records them. */
  stop(graceMs?: number): Promise<void>;
}

const DEFAULT_CONCURRENCY = 128;
const DEFAULT_PER_WEBHOOK = 8;
const DEFAULT_POLL_MS = 250;
/** A dispatch round reads at most this many batches before deliveries get their turn. */
const DISPATCH_ROUNDS = 20;

/**
 * Sends webhook deliveries (DESIGN.md, "Events"): at-least-once, by claiming due rows with a
 * lease (repo.ts), sending them signed (send.ts), and recording every attempt and its retry
 * (schedule.ts) in batches. `start` runs it as a loop (`hub worker`, and `hub serve` on the
 * embedded setup); `runOnce` is one round, for tests with a fake clock.
 *
 * Several workers may run against one PostgreSQL database: a claim takes rows no other worker
 * holds. A worker that dies mid-send leaves its rows claimed until the lease runs out; they are
 * then due again and another worker (or the same, restarted) sends them: the receiver may see
 * a delivery twice (its `webhook-id` tells), never zero times.
 */
export function deliveryWorker(db: Db, options: DeliveryWorkerOptions): DeliveryWorker & { start(): void } {
  const repo = deliveryRepo(db);
  const now = options.now ?? Date.now;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const perWebhook = options.perWebhook ?? DEFAULT_PER_WEBHOOK;
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const leaseMs = options.leaseMs ?? timeoutMs * 2 + 30_000;
  const onError = options.onError ?? (() => undefined);
  const workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

  const inFlight = new Map<number, number>();
  let inFlightTotal = 0;
  const sending = new Set<Promise<void>>();
  let attempts: AttemptRecord[] = [];
  let skipped: SkippedRecord[] = [];
  let flushing: Promise<DisabledWebhook[]> | undefined;
  let running = false;
  let stopped = false;
  let pumping = false;
  // set when asked to look again while a round runs (its claim may have missed new rows)
  let again = false;
  const askedAgain = () => again;
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;

  const release = (job: DeliveryJob) => {
    inFlightTotal--;
    const n = (inFlight.get(job.webhookId) ?? 1) - 1;
    if (n <= 0) inFlight.delete(job.webhookId);
    else inFlight.set(job.webhookId, n);
  };

  /** Writes what finished; a batch that fails to record is sent again once its lease runs out. */
  async function flush(): Promise<DisabledWebhook[]> {
    const disabled: DisabledWebhook[] = [];
    while (flushing) disabled.push(...(await flushing));
    while (attempts.length > 0 || skipped.length > 0) {
      const batch = { attempts, skipped };
      attempts = [];
      skipped = [];
      flushing = repo
        .record(workerId, batch.attempts, batch.skipped, now(), (since) => failingTooLong(since, now()))
        .catch((err: unknown) => {
          onError(err);
          return [];
        });
      const done = await flushing;
      flushing = undefined;
      for (const record of [...batch.attempts, ...batch.skipped]) release(record.job);
      for (const webhook of done) options.onDisabled?.(webhook);
      disabled.push(...done);
      if (running) schedule(0);
    }
    return disabled;
  }

  async function deliver(job: DeliveryJob): Promise<void> {
    if (!job.enabled) skipped.push({ job, status: 'dead', error: 'endpoint disabled' });
    else if (job.body === null)
      skipped.push({ job, status: 'failed', error: 'the event is no longer kept (30 days)' });
    else if (job.secrets.length === 0)
      skipped.push({ job, status: 'failed', error: 'the webhook has no secret' });
    else {
      const startedAt = now();
      const result = await sendSignedWebhook({
        url: job.url,
        body: job.body,
        eventId: formatEventId(job.eventId),
        secrets: job.secrets,
        timeoutMs,
        // signed with the wall clock (receivers check it against theirs), scheduled by `now`
        allowPrivate: options.allowPrivate,
        ...(options.resolve ? { resolve: options.resolve } : {}),
      });
      attempts.push({
        job,
        startedAt,
        result,
        outcome: afterAttempt(job.attempts + 1, result, now(), options.random),
      });
    }
    if (running && !flushing) setImmediate(() => void flush());
  }

  /** Dispatches new events, claims what is due and there is room for, and starts sending it. */
  async function claimAndStart(): Promise<{ claimed: number; wanted: number }> {
    if (options.dispatch)
      for (let round = 0; round < DISPATCH_ROUNDS && (await options.dispatch(now())) > 0; round++);
    const wanted = concurrency - inFlightTotal;
    // a claim costs a write transaction: while busy, wait until a quarter of the slots are free
    if (inFlightTotal > 0 && wanted < Math.ceil(concurrency / 4)) return { claimed: 0, wanted: 0 };
    const full = [...inFlight].flatMap(([id, n]) => (n >= perWebhook ? [id] : []));
    const jobs = await repo.claim({
      now: now(),
      limit: wanted,
      leaseMs,
      workerId,
      full,
      room: (id) => perWebhook - (inFlight.get(id) ?? 0),
    });
    for (const job of jobs) {
      inFlightTotal++;
      inFlight.set(job.webhookId, (inFlight.get(job.webhookId) ?? 0) + 1);
      const p: Promise<void> = deliver(job)
        .catch(onError)
        .finally(() => sending.delete(p));
      sending.add(p);
    }
    return { claimed: jobs.length, wanted };
  }

  function schedule(ms: number) {
    if (stopped) return;
    if (pumping) {
      again = true;
      return;
    }
    clearTimeout(timer);
    timer = setTimeout(() => void pump(), ms);
  }

  async function pump(): Promise<void> {
    if (stopped || pumping) return;
    pumping = true;
    again = false;
    let busy = false;
    try {
      const { claimed, wanted } = await claimAndStart();
      busy = claimed > 0 && claimed === wanted;
    } catch (err) {
      onError(err);
    } finally {
      pumping = false;
    }
    schedule(busy || askedAgain() ? 0 : pollMs);
  }

  const nudge = () => {
    if (running) schedule(0);
  };

  return {
    workerId,
    start() {
      running = true;
      unsubscribe = options.wakeUps?.(nudge);
      schedule(0);
    },
    nudge,
    async runOnce() {
      const { claimed } = await claimAndStart();
      await Promise.all([...sending]);
      const counted = { sent: attempts.length, skipped: skipped.length };
      const disabled = await flush();
      return { ...counted, disabled, claimed };
    },
    async stop(graceMs = 5000) {
      stopped = true;
      running = false;
      unsubscribe?.();
      clearTimeout(timer);
      let timeout: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all([...sending]),
        new Promise((resolve) => (timeout = setTimeout(resolve, graceMs))),
      ]);
      clearTimeout(timeout);
      await flush();
    },
  };
}

/** Starts the delivery loop. */
export function startDeliveryWorker(db: Db, options: DeliveryWorkerOptions): DeliveryWorker {
  const worker = deliveryWorker(db, options);
  worker.start();
  return worker;
}
