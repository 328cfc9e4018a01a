import { CompiledQuery, type Kysely } from 'kysely';
import type { SqliteReader } from '../../db/sqlite-reader.js';
import { VersionedCache } from '../../db/versioned-cache.js';
import type { Database } from '../../db/types.js';
import { writeTransaction } from '../../db/write-transaction.js';
import { emit } from '../events/emit.js';
import { KEY_CREATED, KEY_REVOKED, keyEvents, originsEvents } from './events.js';
import { RecentKeys } from './recent-keys.js';
import type { Subscription, Tier } from './tiers.js';

export interface KeyForAuth {
  id: number;
  hash: string;
  tier: Tier | null;
  quota: number | null;
  revoked_at: number | null;
  user_id: number | null;
  subscription: Subscription | null;
  is_partner: number | null;
  /** browser origins allowed to use the key, space-separated; null: any */
  allowed_origins: string | null;
}

export interface KeyRecord {
  id: number;
  user_id: number | null;
  name: string;
  prefix: string;
  tier: Tier | null;
  quota: number | null;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  allowed_origins: string | null;
}

export interface NewKey {
  user_id: number | null;
  name: string;
  prefix: string;
  hash: string;
  tier: Tier | null;
  quota: number | null;
  created_at: number;
}

const RECORD_COLUMNS = [
  'id',
  'user_id',
  'name',
  'prefix',
  'tier',
  'quota',
  'created_at',
  'last_used_at',
  'revoked_at',
  'allowed_origins',
] as const;

/** Writes a key and tells its creation, inside the caller's transaction. */
async function insertKey(trx: Kysely<Database>, key: NewKey): Promise<KeyRecord> {
  const record = await trx
    .insertInto('api_keys')
    .values(key)
    .returning(RECORD_COLUMNS)
    .executeTakeFirstOrThrow();
  await emit(trx, keyEvents(KEY_CREATED, record), key.created_at);
  return record;
}

/**
 * On SQLite the lookup runs synchronously on the reader connection, and its row is remembered until
 * the database changes: a revocation or plan change, by this process or another one, moves the
 * reader's change counter and so applies to the very next request. The counter is read once per
 * event-loop turn (one system call per batch of requests, not per request).
 */
function cachedAuthLookup(
  reader: SqliteReader,
  sql: string,
): (hash: string, mayExist: () => boolean) => KeyForAuth | undefined {
  const read = reader.prepare<KeyForAuth>(sql);
  const cache = new VersionedCache<string, KeyForAuth>(() => reader.changeCounterThisTurn());
  return (hash, mayExist) => cache.get(hash, () => (mayExist() ? read([hash]) : undefined));
}

export interface KeysRepoOptions {
  /** SQLite's reader connection: the lookup runs on it, synchronously, cached by its change counter */
  reader?: SqliteReader | undefined;
  /** without a reader (PostgreSQL): how long a key row is remembered (KEY_CACHE_MS; 0: never) */
  cacheMs?: number | undefined;
  now?: () => number;
}

export function keysRepo(db: Kysely<Database>, options: KeysRepoOptions = {}) {
  // Runs on every authenticated request: compiled once, so a lookup costs the query, not the
  // query builder (building and compiling it took longer than SQLite takes to run it).
  const authQuery = db
    .selectFrom('api_keys as k')
    .leftJoin('users as u', 'u.id', 'k.user_id')
    .select([
      'k.id',
      'k.hash',
      'k.tier',
      'k.quota',
      'k.revoked_at',
      'k.user_id',
      'u.subscription',
      'u.is_partner',
      'k.allowed_origins',
    ])
    .where('k.hash', '=', '')
    .compile();
  const syncAuth = options.reader && cachedAuthLookup(options.reader, authQuery.sql);
  const readForAuth = (hash: string) =>
    db.executeQuery<KeyForAuth>(CompiledQuery.raw(authQuery.sql, [hash])).then((r) => r.rows[0]);
  const recentKeys =
    !syncAuth && options.cacheMs
      ? new RecentKeys(readForAuth, options.cacheMs, options.now ?? Date.now)
      : undefined;

  return {
    /**
     * The key row and its owner's plan, by the key's hash: one indexed lookup per authenticated
     * request, or none when SQLite's copy is current or (PostgreSQL, KEY_CACHE_MS) the row was read
     * less than `cacheMs` ago. `mayExist` is asked before the database is: a key that fails it is
     * reported missing without a query.
     */
    findForAuth(
      hash: string,
      mayExist: () => boolean,
    ): KeyForAuth | undefined | Promise<KeyForAuth | undefined> {
      if (syncAuth) return syncAuth(hash, mayExist);
      if (!mayExist()) return undefined;
      return recentKeys ? recentKeys.get(hash) : readForAuth(hash);
    },

    async insert(key: NewKey): Promise<KeyRecord> {
      return writeTransaction(db, (trx) => insertKey(trx, key));
    },

    /**
     * Inserts an owned key unless its owner has created `recent.limit` keys (revoked ones included)
     * since `recent.since`, or already holds `activeCap` active keys. Counts and insert run in one
     * transaction behind a no-op update of the owner's row, which locks it on PostgreSQL and takes
     * the write lock on SQLite, so concurrent creations cannot both pass a limit. A refusal by the
     * recent limit says when the oldest key that still counts was created.
     */
    async insertWithinLimits(
      key: NewKey & { user_id: number },
      limits: { activeCap: number; recent: { limit: number; since: number } },
    ): Promise<{ record: KeyRecord } | { refused: 'active' } | { refused: 'recent'; oldestCounted: number }> {
      return writeTransaction(db, async (trx) => {
        await trx
          .updateTable('users')
          .set((eb) => ({ id: eb.ref('id') }))
          .where('id', '=', key.user_id)
          .execute();
        const recent = await trx
          .selectFrom('api_keys')
          .select('created_at')
          .where('user_id', '=', key.user_id)
          .where('created_at', '>', limits.recent.since)
          .orderBy('created_at', 'desc')
          .limit(limits.recent.limit)
          .execute();
        const oldest = recent[limits.recent.limit - 1];
        if (oldest) return { refused: 'recent' as const, oldestCounted: oldest.created_at };
        const { n } = await trx
          .selectFrom('api_keys')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('user_id', '=', key.user_id)
          .where('revoked_at', 'is', null)
          .executeTakeFirstOrThrow();
        if (n >= limits.activeCap) return { refused: 'active' as const };
        return { record: await insertKey(trx, key) };
      });
    },

    list(filter: { userId?: number } = {}): Promise<KeyRecord[]> {
      let query = db.selectFrom('api_keys').select(RECORD_COLUMNS).orderBy('id');
      if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
      return query.execute();
    },

    findById(id: number): Promise<KeyRecord | undefined> {
      return db.selectFrom('api_keys').select(RECORD_COLUMNS).where('id', '=', id).executeTakeFirst();
    },

    /** Sets (or, with null, lifts) the browser origins a key may be used from. */
    async setAllowedOrigins(id: number, origins: string | null, now = Date.now()): Promise<void> {
      await writeTransaction(db, async (trx) => {
        const record = await trx
          .updateTable('api_keys')
          .set({ allowed_origins: origins })
          .where('id', '=', id)
          .returning(RECORD_COLUMNS)
          .executeTakeFirst();
        if (record) await emit(trx, originsEvents(record), now);
      });
      recentKeys?.forgetAll();
    },

    /** Returns false when there was no such active key. */
    async revoke(id: number, at: number, filter: { userId?: number } = {}): Promise<boolean> {
      const revoked = await writeTransaction(db, async (trx) => {
        let query = trx
          .updateTable('api_keys')
          .set({ revoked_at: at })
          .where('id', '=', id)
          .where('revoked_at', 'is', null);
        if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
        const record = await query.returning(RECORD_COLUMNS).executeTakeFirst();
        if (record) await emit(trx, keyEvents(KEY_REVOKED, record), at);
        return record !== undefined;
      });
      // this instance refuses the key at its next request; the others within their KEY_CACHE_MS
      if (revoked) recentKeys?.forgetAll();
      return revoked;
    },
  };
}

export type KeysRepo = ReturnType<typeof keysRepo>;
