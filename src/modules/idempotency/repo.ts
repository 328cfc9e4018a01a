import type { Kysely, Selectable } from 'kysely';
import type { Database, IdempotencyKeysTable } from '../../db/types.js';
import type { SqliteReader } from '../../db/sqlite-reader.js';
import type { IdempotencyClaim, IdempotencyStore, StoredResponse } from '../../http/idempotency.js';

/** A claim of a request that never answered (its process died) may be taken over after this. */
export const IDEMPOTENCY_LEASE_MS = 60_000;
/** How long a key and its response are kept and replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
const SWEEP_EVERY_MS = 60_000;

/** An answer to store under (owner, key), as of `at`. */
export interface AnswerToStore {
  owner: string;
  key: string;
  fingerprint: string;
  response: StoredResponse;
  at: number;
}

/**
 * Writes answers as done, in one statement however many there are, inside the caller's transaction
 * when given one (a route that stores its answers with its own writes: a batch of transfers). A
 * row still claimed (its request's process died) or an expired answer becomes the new answer; a
 * live stored answer is left as it is. Each (owner, key) may appear once.
 */
export async function storeAnswers(db: Kysely<Database>, answers: readonly AnswerToStore[]): Promise<void> {
  if (answers.length === 0) return;
  await db
    .insertInto('idempotency_keys')
    .values(
      answers.map(({ owner, key, fingerprint, response, at }) => ({
        owner,
        key,
        fingerprint,
        state: 'done',
        status: response.status,
        content_type: response.contentType,
        body: response.body,
        created_at: at,
        lease_until: at,
        expires_at: at + IDEMPOTENCY_TTL_MS,
      })),
    )
    .onConflict((oc) =>
      oc
        .columns(['owner', 'key'])
        .doUpdateSet((eb) => ({
          fingerprint: eb.ref('excluded.fingerprint'),
          state: eb.ref('excluded.state'),
          status: eb.ref('excluded.status'),
          content_type: eb.ref('excluded.content_type'),
          body: eb.ref('excluded.body'),
          created_at: eb.ref('excluded.created_at'),
          expires_at: eb.ref('excluded.expires_at'),
        }))
        .where((eb) =>
          eb.or([
            eb('idempotency_keys.state', '!=', 'done'),
            eb('idempotency_keys.expires_at', '<=', eb.ref('excluded.created_at')),
          ]),
        ),
    )
    .execute();
}

type KeyRow = Selectable<IdempotencyKeysTable>;

const replayOf = (row: KeyRow): IdempotencyClaim => ({
  outcome: 'replay',
  fingerprint: row.fingerprint,
  response: {
    status: row.status ?? 200,
    contentType: row.content_type ?? 'application/json; charset=utf-8',
    body: row.body ?? '',
  },
});

/**
 * Idempotency keys in the database, so that every API instance sees the same claims. The
 * primary key (owner, key) makes the first INSERT the only winner; everything else reads the row.
 *
 * On SQLite, `find` (the read that leads every request of an in-transaction route: coin transfers)
 * runs synchronously on the reader connection, compiled once (as the API-key lookup does). It
 * only needs what is committed, and on the writer's one connection it would wait behind the
 * transaction under way (a batch of transfers) and cost the query builder on every request.
 */
export function idempotencyRepo(
  db: Kysely<Database>,
  options: { reader?: SqliteReader | undefined } = {},
): IdempotencyStore {
  let lastSweep = 0;
  const where = (owner: string, key: string) =>
    db.selectFrom('idempotency_keys').where('owner', '=', owner).where('key', '=', key);
  const findSql = where('', '').selectAll().compile().sql;
  const readRow = options.reader?.prepare<KeyRow>(findSql);

  async function sweep(now: number): Promise<void> {
    if (now - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = now;
    await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).execute();
  }

  async function tryClaim(owner: string, key: string, fingerprint: string, now: number): Promise<boolean> {
    const result = await db
      .insertInto('idempotency_keys')
      .values({
        owner,
        key,
        fingerprint,
        state: 'in_flight',
        status: null,
        content_type: null,
        body: null,
        created_at: now,
        lease_until: now + IDEMPOTENCY_LEASE_MS,
        expires_at: now + IDEMPOTENCY_TTL_MS,
      })
      .onConflict((oc) => oc.columns(['owner', 'key']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  return {
    async claim(owner, key, fingerprint, now): Promise<IdempotencyClaim> {
      await sweep(now);
      // Three rounds cover a row that expires or is released between our INSERT and SELECT.
      for (let round = 0; round < 3; round++) {
        if (await tryClaim(owner, key, fingerprint, now)) return { outcome: 'claimed' };
        const row = await where(owner, key).selectAll().executeTakeFirst();
        if (!row) continue;
        if (row.expires_at <= now) {
          await db
            .deleteFrom('idempotency_keys')
            .where('owner', '=', owner)
            .where('key', '=', key)
            .where('expires_at', '=', row.expires_at)
            .execute();
          continue;
        }
        if (row.state === 'done') return replayOf(row);
        if (row.lease_until > now || row.fingerprint !== fingerprint) {
          return { outcome: 'in_flight', fingerprint: row.fingerprint };
        }
        // The first request's process died before answering: take its claim over, once.
        const taken = await db
          .updateTable('idempotency_keys')
          .set({ lease_until: now + IDEMPOTENCY_LEASE_MS })
          .where('owner', '=', owner)
          .where('key', '=', key)
          .where('state', '=', 'in_flight')
          .where('lease_until', '=', row.lease_until)
          .executeTakeFirst();
        if (Number(taken.numUpdatedRows) === 1) return { outcome: 'claimed' };
      }
      return { outcome: 'in_flight', fingerprint };
    },

    async complete(owner, key, response, now): Promise<void> {
      await db
        .updateTable('idempotency_keys')
        .set({
          state: 'done',
          status: response.status,
          content_type: response.contentType,
          body: response.body,
          expires_at: now + IDEMPOTENCY_TTL_MS,
        })
        .where('owner', '=', owner)
        .where('key', '=', key)
        .execute();
    },

    async find(owner, key, fingerprint, now): Promise<IdempotencyClaim | undefined> {
      await sweep(now);
      const row = readRow ? readRow([owner, key]) : await where(owner, key).selectAll().executeTakeFirst();
      if (!row || row.expires_at <= now) return undefined;
      if (row.state === 'done') return replayOf(row);
      // a claim whose process died (its lease ran out): the handler's own record decides
      if (row.lease_until <= now && row.fingerprint === fingerprint) return undefined;
      return { outcome: 'in_flight', fingerprint: row.fingerprint };
    },

    remember: (owner, key, fingerprint, response, now) =>
      storeAnswers(db, [{ owner, key, fingerprint, response, at: now }]),

    async release(owner, key): Promise<void> {
      await db
        .deleteFrom('idempotency_keys')
        .where('owner', '=', owner)
        .where('key', '=', key)
        .where('state', '=', 'in_flight')
        .execute();
    },
  };
}
