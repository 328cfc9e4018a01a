/**
 * One instance's lease on one key's quota in one window: a block of units reserved in Redis, spent
 * here in memory (see RedisRateLimitStore). The figures of a block are the fleet-wide `used` values
 * its requests report: Redis hands out consecutive figures, so no two requests of the fleet report
 * the same one until units are given back (see the README's bounds).
 */

/** Redis keeps a block this long after its holder's last report; an instance killed with -9 loses its units for at most this. */
export const LEASE_TTL_MS = 3000;
/** The holder stops spending a block this long before Redis would free it (a reply late by this much is still safe). */
const LEASE_MARGIN_MS = 1000;
/** A block nothing was spent from for this long goes back to Redis. */
export const IDLE_RETURN_MS = 2000;
/** Spending is reported to Redis (for every key at once) at most this often. */
export const REPORT_MS = 100;
/** A block covers about this many seconds of the key's recent spending on this instance... */
const BLOCK_SECONDS = 1;
/** ...but leaves at most 1/this of the limit unspent in the hands of one instance. */
export const MAX_BLOCK_SHARE = 100;
/**
 * An instance re-reads the fleet's count of every key it served in the last KEEP_VIEW_MS at least
 * this often (one call for all of them), even with nothing to report: while Redis is unreachable it
 * allows 1/N of what was left as it last saw it, and after an empty restart the count is rebuilt
 * from the freshest view, so a view that missed the others' latest blocks would let them be served
 * twice. (Only blocks reserved since move the count: reports of spending within a block do not.)
 */
export const VIEW_REFRESH_MS = 1000;
export const KEEP_VIEW_MS = 60_000;
/** After Redis says no unit is left and nobody holds any, refusals are answered from memory this long. */
export const EXHAUSTED_MS = 250;

/**
 * How many units one instance may hold unspent for a key with `limit`: the bound of early refusals
 * (another instance holds them) and of repeated `used` figures (units given back are handed out again).
 */
export const maxLeftover = (limit: number): number => Math.max(1, Math.floor(limit / MAX_BLOCK_SHARE));

export type Verdict = 'granted' | 'exhausted' | 'alone';

export class Lease {
  /** the next figure to hand out, and the block's last one */
  next = 1;
  end = 0;
  /** local clock: the block is not spent from after this */
  expiresAt = 0;
  /** spent (refunds: minus) since the last report */
  unreported = 0;
  /** requests counted here alone (Redis unreachable), not reported yet */
  alone = 0;
  /**
   * the instances this one counted alone among (the largest N of its 1/N shares): the estimate it
   * reports afterwards uses it, not the fleet's size then (just after an empty restart the
   * heartbeats have not all come back, and the fleet looks smaller than it was)
   */
  aloneAmong = 1;
  /** the fleet's units in use for this key (spent and held), as of Redis's last reply */
  lastInUse = 0;
  /** ...of which spent (or estimated spent after an outage), and the hash's gen then (0: none yet) */
  lastSpent = 0;
  gen = 0;
  /** local clock: when the request that brought that reply was sent */
  viewedAt = 0;
  lastUsedAt: number;
  /** requests per second here, smoothed */
  private rate = 0;
  private rateSince: number;
  private rateCount = 0;
  /** Redis said no unit is left and nobody holds any: refusals answered from memory until then */
  exhaustedUntil = 0;
  /** the units Redis counts as held here, as last told */
  heldInRedis = 0;
  /** the reservation in flight, which requests finding the block empty wait for */
  pending: Promise<Verdict> | undefined;
  /** requests waiting for `pending` */
  waiters = 0;

  constructor(
    readonly windowStart: number,
    readonly windowEnd: number,
    /** the key's tier and limit: a block is dropped when either changes */
    public identity: string,
    now: number,
  ) {
    this.lastUsedAt = now;
    this.rateSince = now;
  }

  get unspent(): number {
    return Math.max(0, this.end - this.next + 1);
  }

  /** The figure of the next unit of the block, or 0 when it is spent or expired. */
  take(now: number): number {
    if (this.next > this.end || now >= this.expiresAt) return 0;
    this.unreported++;
    return this.next++;
  }

  /** Counts a request for the spending rate. */
  seen(now: number): void {
    this.lastUsedAt = now;
    this.rateCount++;
    const elapsed = now - this.rateSince;
    if (elapsed >= 1000) {
      this.rate = (this.rate + (this.rateCount * 1000) / elapsed) / 2;
      this.rateSince = now;
      this.rateCount = 0;
    }
  }

  /** Gives up the rest of the block (it goes back to Redis with the next call). */
  drop(): void {
    this.next = this.end + 1;
  }

  /** What Redis's reply to a call sent at `sentAt` said of the key. */
  saw(inUse: number, gen: number, spent: number, sentAt: number): void {
    this.lastInUse = inUse;
    this.gen = gen;
    this.lastSpent = spent;
    this.viewedAt = sentAt;
  }

  /** A block Redis granted at `sentAt`: `grant` units whose last figure is `inUse`. */
  granted(grant: number, inUse: number, sentAt: number): void {
    this.lastInUse = inUse;
    this.next = inUse - grant + 1;
    this.end = inUse;
    this.expiresAt = sentAt + LEASE_TTL_MS - LEASE_MARGIN_MS;
    this.heldInRedis = grant;
  }

  /** A report told Redis this instance holds `held` units (renewing them when there are any). */
  reported(held: number, sentAt: number): void {
    this.heldInRedis = held;
    if (held > 0) this.expiresAt = sentAt + LEASE_TTL_MS - LEASE_MARGIN_MS;
  }

  /**
   * Whether this lease has a call due: spending or requests counted alone to report, units to give
   * back or renew, or a view of the count to refresh.
   */
  hasNews(at: number): boolean {
    const renew = this.unspent > 0 && this.expiresAt - at < LEASE_TTL_MS / 2;
    const refresh = at - this.viewedAt >= VIEW_REFRESH_MS && at - this.lastUsedAt < KEEP_VIEW_MS;
    return this.unreported !== 0 || this.alone > 0 || this.unspent !== this.heldInRedis || renew || refresh;
  }

  /**
   * Units to ask for: every request waiting now, plus about a second of this instance's spending
   * (at most maxLeftover), and near the limit no more than half the rest split between instances.
   */
  want(limit: number, instances: number): number {
    const ahead = Math.min(Math.ceil(this.rate * BLOCK_SECONDS), maxLeftover(limit));
    const nearLimit = Math.max(1, Math.floor((limit - this.lastInUse) / (2 * instances)));
    return Math.max(1, Math.min(Math.max(this.waiters, ahead), nearLimit));
  }

  /**
   * While Redis is unreachable: the fleet's estimated figure for one more request counted here
   * alone, assuming every instance serves as many (so each allows 1/instances of what was left),
   * or 0 past the limit.
   */
  countAlone(limit: number, instances: number): number {
    const figure = this.lastInUse + instances * (this.alone + 1);
    if (figure > limit) return 0;
    this.alone++;
    this.aloneAmong = Math.max(this.aloneAmong, instances);
    return figure;
  }
}
