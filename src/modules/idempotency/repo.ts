import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';
import type { IdempotencyClaim, IdempotencyStore, StoredResponse } from '../../http/idempotency.js';

/** A claim of a request that never answered (its process died) may be taken over after this. */
export const IDEMPOTENCY_LEASE_MS = 60_000;
/** How long a key and its response are kept and replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
const SWEEP_EVERY_MS = 60_000;

/**
 * Idempotency keys in the database, so that every API instance sees the same claims. The
 * primary key (owner, key) makes the first INSERT the only winner; everything else reads the row.
 */
export function idempotencyRepo(db: Kysely<Database>): IdempotencyStore {
  let lastSweep = 0;
  const where = (owner: string, key: string) =>
    db.selectFrom('idempotency_keys').where('owner', '=', owner).where('key', '=', key);

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
        if (row.state === 'done') {
          const response: StoredResponse = {
            status: row.status ?? 200,
            contentType: row.content_type ?? 'application/json; charset=utf-8',
            body: row.body ?? '',
          };
          return { outcome: 'replay', fingerprint: row.fingerprint, response };
        }
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
