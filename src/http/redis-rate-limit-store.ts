import type { Result } from 'ioredis';
import type { Broadcast } from './broadcast.js';
import { EXHAUSTED_MS, IDLE_RETURN_MS, Lease, LEASE_TTL_MS, REPORT_MS, type Verdict } from './quota-lease.js';
import type { LeaseSubject, RateLimitStore, StoreHealth } from './rate-limit-store.js';
import type { RedisLink, StoreFailureMode } from './redis-link.js';
import { WINDOW_MS } from './quota.js';

/**
 * Reserves, reports and gives back units of keys' quotas, atomically, for one instance. A key's
 * window is a hash: `spent` (units reported spent), `gen` (when the hash was made, in ms: tells a
 * view of an older hash, lost by a Redis that restarted empty), and one field per instance holding
 * a block, `h:<instance>` = "<units>:<expiry>" (Redis's clock). In use = spent + the blocks not
 * expired: a holder killed with -9 stops renewing, and its units come back once its field expires.
 * KEYS: the hashes; ARGV: instance id, lease ttl, then per key: want, limit, units spent from blocks
 * since the last report (refunds: minus), requests counted alone since then, units still held after
 * this call, ms until the hash expires (its window's end and a minute), the `gen` the caller last
 * saw (0: none), the count it last saw spent, its estimate.
 * After an outage:
 * - A caller whose `gen` is not the hash's saw the count before Redis lost it: the count is raised
 *   to the highest such view (`base`), and what was spent since comes on top, so an empty restart
 *   hands out no quota already spent.
 * - `estimate`, from an instance that counted alone, is what the whole fleet may have served (what
 *   it last saw, and the instances times what it served alone). What it expects beyond the count is
 *   kept as `gap`, shrinking as the others report what they counted alone, and counted as spent
 *   until they all have (a lease ttl): the first instance back is not granted the others' units.
 * Returns per key: units granted, units in use after (the figure of the last one), units held by
 * others, the hash's gen, the count spent (with the gap) before this call's grant.
 */
const LEASE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local me = 'h:' .. ARGV[1]
local ttl = tonumber(ARGV[2])
local out = {}
for k = 1, #KEYS do
  local a = 2 + (k - 1) * 9
  local want, limit = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local delta, alone, held = tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4]), tonumber(ARGV[a + 5])
  local expireIn, seen, seenSpent = ARGV[a + 6], tonumber(ARGV[a + 7]), tonumber(ARGV[a + 8])
  local estimate = tonumber(ARGV[a + 9])
  local fields = redis.call('HGETALL', KEYS[k])
  local spent, base, gen, others, gap = 0, 0, 0, 0, 0
  for i = 1, #fields, 2 do
    local f, v = fields[i], fields[i + 1]
    if f == 'spent' then
      spent = tonumber(v)
    elseif f == 'base' then
      base = tonumber(v)
    elseif f == 'gen' then
      gen = tonumber(v)
    elseif f ~= me then
      local units, exp = string.match(v, '^(%d+):(%d+)$')
      if tonumber(exp) <= now then
        redis.call('HDEL', KEYS[k], f)
      elseif f == 'gap' then
        gap = tonumber(units)
      else
        others = others + tonumber(units)
      end
    end
  end
  if gen == 0 then
    gen = now
    redis.call('HSET', KEYS[k], 'gen', gen)
  end
  -- counts from before the outage, now known: part of what an estimate expected
  local revealed = alone
  if seen ~= 0 and seen ~= gen and seenSpent > base then
    revealed = revealed + seenSpent - base
    spent = spent + seenSpent - base
    redis.call('HSET', KEYS[k], 'base', seenSpent)
  end
  spent = math.max(0, spent + delta + alone)
  local newGap = math.max(0, gap - revealed, estimate - spent)
  if newGap ~= gap then
    gap = newGap
    if gap > 0 then redis.call('HSET', KEYS[k], 'gap', gap .. ':' .. (now + ttl)) else redis.call('HDEL', KEYS[k], 'gap') end
  end
  local counted = spent + gap
  local inUse = counted + others + held
  local grant = math.max(0, math.min(want, limit - inUse))
  held = held + grant
  inUse = inUse + grant
  redis.call('HSET', KEYS[k], 'spent', spent)
  if held > 0 then redis.call('HSET', KEYS[k], me, held .. ':' .. (now + ttl)) else redis.call('HDEL', KEYS[k], me) end
  redis.call('PEXPIRE', KEYS[k], expireIn)
  out[#out + 1] = grant
  out[#out + 1] = inUse
  out[#out + 1] = others
  out[#out + 1] = gen
  out[#out + 1] = counted
end
return out
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    hubQuotaLease(keyCount: number, ...keysThenArgs: (string | number)[]): Result<number[], Context>;
  }
}

/** Numbers the script returns per key. */
const REPLY_FIELDS = 5;
/** Where an instance asks the others to give a key's unspent units back (a refusal is about to happen). */
const RECLAIM_TOPIC = 'quota-reclaim';
/** A refusal waits this long (twice) for the other instances to give units back before it is final. */
const RECLAIM_WAIT_MS = 100;
/** Idle returns, renewals, views to refresh and forgotten windows are looked at this often. */
const SWEEP_MS = 500;

interface Call {
  key: string;
  lease: Lease;
  want: number;
  limit: number;
  /** spent and counted alone, sent: taken back into the lease if the call fails */
  delta: number;
  alone: number;
  held: number;
}

/**
 * Shares quota counters between API instances with leases: an instance reserves a block of a key's
 * quota in one atomic call (one Redis round trip per block, not per request), spends it in memory,
 * reports its spending every REPORT_MS (one call for all keys), and gives back what it did not
 * spend when the key goes idle, when another instance is out of units, when the key's tier changes
 * and on shutdown, and re-reads the count of the keys it served lately (VIEW_REFRESH_MS). A key is
 * never granted beyond its limit. While Redis is unreachable (see RedisLink: slow is not down) the
 * instance counts alone and allows 1/N of what was left of each limit as it last saw it, N being
 * the instances it last saw alive; or answers 503 when failing closed.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly prefix: string;
  private readonly leases = new Map<string, Lease>();
  private reportTimer: NodeJS.Timeout | undefined;
  private readonly sweeper: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  /** Redis round trips of this store (the benchmark prints them per 1,000 requests) */
  roundTrips = 0;

  /** `prefix`: the deployment's Redis prefix (REDIS_PREFIX); quota keys live under `<prefix>rl:`. */
  constructor(
    private readonly link: RedisLink,
    prefix: string,
    private readonly instance: string,
    private readonly broadcast: Broadcast,
    private readonly now: () => number = Date.now,
  ) {
    this.prefix = `${prefix}rl:`;
    link.client.defineCommand('hubQuotaLease', { lua: LEASE });
    this.unsubscribe = broadcast.subscribe(RECLAIM_TOPIC, (key) => this.giveBack(key));
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  private hashOf(key: string, windowStart: number): string {
    return `${this.prefix}${key}:${windowStart}`;
  }

  /** This window's lease on `key`, a fresh one when the window or the key's tier changed. */
  private leaseFor(key: string, windowStart: number, windowMs: number, identity: string, at: number): Lease {
    let lease = this.leases.get(key);
    if (!lease || lease.windowStart !== windowStart) {
      lease = new Lease(windowStart, windowStart + windowMs, identity, at);
      this.leases.set(key, lease);
    } else if (lease.identity !== identity) {
      lease.identity = identity;
      lease.drop();
      lease.exhaustedUntil = 0;
    }
    return lease;
  }

  hit(key: string, windowStart: number, windowMs: number, subject: LeaseSubject): number | Promise<number> {
    const at = this.now();
    const lease = this.leaseFor(key, windowStart, windowMs, `${subject.tier}:${subject.limit}`, at);
    lease.seen(at);
    const figure = lease.take(at);
    if (figure > 0) {
      this.scheduleReport();
      return figure;
    }
    if (at < lease.exhaustedUntil && !lease.pending) return subject.limit + 1;
    return this.wait(key, lease, subject);
  }

  /** Waits for a block (one reservation for every request that finds the block empty meanwhile). */
  private async wait(key: string, lease: Lease, subject: LeaseSubject): Promise<number> {
    for (;;) {
      lease.waiters++;
      lease.pending ??= this.reserve(key, lease, subject).finally(() => {
        lease.pending = undefined;
      });
      let verdict: Verdict;
      try {
        verdict = await lease.pending;
      } finally {
        lease.waiters--;
      }
      const at = this.now();
      if (verdict === 'exhausted') return subject.limit + 1;
      if (verdict === 'alone')
        return lease.countAlone(subject.limit, this.link.fleetSize()) || subject.limit + 1;
      const figure = lease.take(at);
      if (figure > 0) {
        this.scheduleReport();
        return figure;
      }
      // more requests waited than the block had units: the next reservation is for them
    }
  }

  /** Reserves a block; out of units, asks the others to give theirs back and tries again (twice). */
  private async reserve(key: string, lease: Lease, subject: LeaseSubject): Promise<Verdict> {
    for (let attempt = 0; ; attempt++) {
      lease.drop();
      const want = lease.want(subject.limit, this.link.fleetSize());
      const sentAt = this.now();
      const call: Call = { key, lease, want, limit: subject.limit, delta: 0, alone: 0, held: 0 };
      const reply = await this.send([call], this.link.failureMode);
      if (!reply) return 'alone';
      const [grant = 0, inUse = 0, others = 0] = reply;
      if (grant > 0) {
        lease.granted(grant, inUse, sentAt);
        return 'granted';
      }
      lease.heldInRedis = 0;
      if (others === 0 || attempt === 2) {
        lease.exhaustedUntil = this.now() + EXHAUSTED_MS;
        return 'exhausted';
      }
      this.broadcast.publish(RECLAIM_TOPIC, key);
      await new Promise((resolve) => setTimeout(resolve, RECLAIM_WAIT_MS));
    }
  }

  /**
   * One call for `calls`: each sends what its lease spent (and counted alone) since the last one.
   * Resolves with the script's flat reply, or undefined when Redis is unreachable (what was sent is
   * then kept for the next call); rejects with 503 when `mode` is closed and Redis unreachable.
   */
  private async send(calls: Call[], mode: StoreFailureMode = 'open'): Promise<number[] | undefined> {
    const keys: string[] = [];
    const args: (string | number)[] = [this.instance, LEASE_TTL_MS];
    const at = this.now();
    for (const call of calls) {
      const { lease } = call;
      call.delta = lease.unreported;
      call.alone = lease.alone;
      lease.unreported = 0;
      lease.alone = 0;
      const estimate = call.alone > 0 ? lease.lastInUse + lease.aloneAmong * call.alone : 0;
      keys.push(this.hashOf(call.key, lease.windowStart));
      args.push(
        call.want,
        call.limit,
        call.delta,
        call.alone,
        call.held,
        Math.max(60_000, lease.windowEnd + 60_000 - at),
        lease.gen,
        lease.lastSpent,
        estimate,
      );
    }
    const restore = () => {
      for (const { lease, delta, alone } of calls) {
        lease.unreported += delta;
        lease.alone += alone;
      }
      return undefined;
    };
    this.roundTrips++;
    try {
      return await this.link.use(
        async (redis) => {
          const reply = await redis.hubQuotaLease(keys.length, ...keys, ...args);
          calls.forEach(({ lease }, i) => {
            const [, inUse = 0, , gen = 0, spent = 0] = reply.slice(i * REPLY_FIELDS);
            lease.saw(inUse, gen, spent, at);
          });
          return reply;
        },
        restore,
        mode,
      );
    } catch (error) {
      restore();
      throw error;
    }
  }

  private scheduleReport(): void {
    this.reportTimer ??= setTimeout(() => {
      this.reportTimer = undefined;
      void this.report(this.now());
    }, REPORT_MS);
    this.reportTimer.unref();
  }

  /**
   * Reports every lease with news (spending, requests counted alone, units to give back or to
   * renew) in one call. A lease with a reservation in flight waits: that reservation reports it.
   */
  private async report(at: number, everything = false): Promise<void> {
    const calls: Call[] = [];
    for (const [key, lease] of this.leases) {
      if (lease.pending) continue;
      if (everything || at - lease.lastUsedAt >= IDLE_RETURN_MS) lease.drop();
      if (lease.hasNews(at))
        calls.push({ key, lease, want: 0, limit: 0, delta: 0, alone: 0, held: lease.unspent });
    }
    if (calls.length === 0) return;
    const reply = await this.send(calls).catch(() => undefined);
    if (!reply) return;
    // a reservation sent since then tells what is held itself
    for (const { lease, held } of calls) if (!lease.pending) lease.reported(held, at);
  }

  /** Another instance is out of units for `key`: what this one holds goes back now. */
  private giveBack(key: string): void {
    const lease = this.leases.get(key);
    if (!lease || lease.unspent === 0 || lease.pending) return;
    lease.drop();
    void this.report(this.now());
  }

  private sweep(): void {
    const at = this.now();
    for (const [key, lease] of this.leases) {
      // a past window's hash expires on its own
      if (at >= lease.windowEnd + 60_000 && !lease.pending) this.leases.delete(key);
    }
    void this.report(at);
  }

  /** A 304 does not count: its unit goes back to Redis now, so the next request anywhere sees it. */
  refund(key: string, windowStart: number): void {
    const lease = this.leases.get(key);
    if (lease?.windowStart !== windowStart) return;
    if (lease.alone > 0) lease.alone--;
    else lease.unreported--;
    void this.report(this.now());
  }

  peek(key: string, windowStart: number): number | Promise<number> {
    const lease = this.leases.get(key);
    const known =
      lease?.windowStart === windowStart && !lease.pending
        ? lease
        : new Lease(windowStart, windowStart + WINDOW_MS, '', this.now());
    const call: Call = { key, lease: known, want: 0, limit: 0, delta: 0, alone: 0, held: known.unspent };
    return this.send([call]).then((reply) => reply?.[1] ?? known.lastInUse + known.alone);
  }

  health(): StoreHealth {
    return this.link.health();
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    clearTimeout(this.reportTimer);
    this.unsubscribe();
    await Promise.allSettled([...this.leases.values()].flatMap((lease) => lease.pending ?? []));
    await this.report(this.now(), true).catch(() => undefined);
    this.leases.clear();
    await this.link.close();
  }
}
