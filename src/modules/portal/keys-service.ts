import { ProblemError } from '../../http/problem.js';
import { storeKeyOf, WINDOW_MS, windowStartOf } from '../../http/quota.js';
import type { RateLimitStore } from '../../http/rate-limit-store.js';
import { toIso } from '../../http/schemas.js';
import type { KeyRecord, KeysRepo } from '../keys/repo.js';
import { newKey } from '../keys/service.js';
import { originsOf, parseOrigins, storedOrigins } from '../keys/origins.js';
import { limitFor } from '../keys/tiers.js';
import type { UsageRecorder } from '../usage/recorder.js';
import type { UsageRepo } from '../usage/repo.js';
import type { PortalKey, UsageBody, UsageCounts } from './schemas.js';
import type { PortalAccount } from './session-auth.js';

/** Active (not revoked) keys one account may hold; revoked ones do not count. */
export const ACTIVE_KEY_CAP = 10;

/**
 * Keys one account may create in any 24 hours, revoked ones included: making keys is cheap, and
 * an account that could mint them without end could fill the database (operators are not limited).
 */
export const KEY_CREATIONS_PER_DAY = 10;
const DAY_MS = 24 * 3_600_000;

export interface PortalKeysDeps {
  keys: KeysRepo;
  usage: UsageRepo;
  recorder: UsageRecorder;
  rateLimitStore: RateLimitStore;
  now: () => number;
}

export function portalKeysService({ keys, usage, recorder, rateLimitStore, now }: PortalKeysDeps) {
  const quotaOf = (record: KeyRecord, account: PortalAccount) =>
    limitFor(record.tier ?? account.tier, record.quota);

  async function view(record: KeyRecord, account: PortalAccount): Promise<PortalKey> {
    const windowStart = windowStartOf(now());
    // The quota store is what the API enforces, so "this hour" matches the x-ratelimit-used header.
    // A key revoked before this hour began has made no counted request in it: no store lookup.
    const used =
      record.revoked_at !== null && record.revoked_at < windowStart
        ? 0
        : await rateLimitStore.peek(storeKeyOf(record.id), windowStart);
    return {
      id: record.id,
      name: record.name,
      prefix: record.prefix,
      tier: record.tier ?? account.tier,
      quota: quotaOf(record, account),
      created: toIso(record.created_at),
      last_used: record.last_used_at === null ? null : toIso(record.last_used_at),
      requests_this_hour: used,
      revoked: record.revoked_at !== null,
      revoked_at: record.revoked_at === null ? null : toIso(record.revoked_at),
      allowed_origins: originsOf(record.allowed_origins),
    };
  }

  /** Another account's key and a missing key look the same: no enumeration of key ids. */
  async function ownKey(account: PortalAccount, id: number): Promise<KeyRecord> {
    const record = await keys.findById(id);
    if (record?.user_id !== account.id)
      throw new ProblemError('key_not_found', `You have no API key with id ${id}.`);
    return record;
  }

  return {
    async list(account: PortalAccount): Promise<PortalKey[]> {
      const records = await keys.list({ userId: account.id });
      return Promise.all(records.reverse().map((r) => view(r, account)));
    },

    async create(account: PortalAccount, name: string): Promise<{ key: PortalKey; secret: string }> {
      // tier null: the key follows its owner's plan, so a subscription change applies at once.
      const at = now();
      const { row, secret } = newKey({ name: name.trim(), userId: account.id, tier: null }, at);
      const result = await keys.insertWithinLimits(
        { ...row, user_id: account.id },
        { activeCap: ACTIVE_KEY_CAP, recent: { limit: KEY_CREATIONS_PER_DAY, since: at - DAY_MS } },
      );
      if ('record' in result) return { key: await view(result.record, account), secret };
      if (result.refused === 'active') {
        throw new ProblemError(
          'key_limit_reached',
          `An account can hold ${ACTIVE_KEY_CAP} active keys; revoke one before creating another.`,
        );
      }
      const seconds = Math.max(1, Math.ceil((result.oldestCounted + DAY_MS - at) / 1000));
      throw new ProblemError(
        'key_creation_limited',
        `An account can create ${KEY_CREATIONS_PER_DAY} keys in 24 hours, revoked ones included; the next one can be created in ${Math.ceil(seconds / 60)} minute(s).`,
        { headers: { 'retry-after': String(seconds) } },
      );
    },

    async revoke(account: PortalAccount, id: number): Promise<PortalKey> {
      const record = await ownKey(account, id);
      if (record.revoked_at === null) {
        const at = now();
        await keys.revoke(id, at, { userId: account.id });
        record.revoked_at = at;
      }
      return view(record, account);
    },

    /** Restricts a key to browser origins (or, with none, allows any); 400 names each bad entry. */
    async setOrigins(account: PortalAccount, id: number, entries: readonly string[]): Promise<PortalKey> {
      const record = await ownKey(account, id);
      const parsed = parseOrigins(entries);
      if ('errors' in parsed) {
        // shaped like origins (the schema checked that) but not as a browser writes them
        throw new ProblemError(
          'unprocessable',
          parsed.errors.map((e) => `${e.name}: ${e.reason}`).join('; '),
          { invalidParams: parsed.errors },
        );
      }
      record.allowed_origins = storedOrigins(parsed.origins);
      await keys.setAllowedOrigins(id, record.allowed_origins, now());
      return view(record, account);
    },

    async get(account: PortalAccount, id: number): Promise<PortalKey> {
      return view(await ownKey(account, id), account);
    },

    /** Hourly counts for the last `hours` hours (current one included), flushed plus still buffered. */
    async usage(account: PortalAccount, id: number, hours: number): Promise<UsageBody['usage']> {
      const record = await ownKey(account, id);
      const current = windowStartOf(now());
      const from = current - (hours - 1) * WINDOW_MS;
      const rows = await recorder.withPending([id], () => usage.since([id], from));
      const empty = (): UsageCounts => ({
        '2xx': 0,
        '3xx': 0,
        '4xx': 0,
        '429': 0,
        '5xx': 0,
        total: 0,
      });
      const byHour = new Map<number, UsageCounts>();
      for (let h = from; h <= current; h += WINDOW_MS) byHour.set(h, empty());
      const totals = empty();
      for (const row of rows) {
        const bucket = byHour.get(row.hour);
        if (!bucket) continue;
        bucket[row.class] += row.count;
        bucket.total += row.count;
        totals[row.class] += row.count;
        totals.total += row.count;
      }
      return {
        key_id: id,
        quota: quotaOf(record, account),
        hours: [...byHour].map(([hour, counts]) => ({ hour: toIso(hour), ...counts })),
        totals,
      };
    },
  };
}

export type PortalKeysService = ReturnType<typeof portalKeysService>;
