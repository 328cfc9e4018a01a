import { CompiledQuery, type Kysely } from 'kysely';
import type { Database, KeyUsageTable } from '../../db/types.js';
import { writeTransaction } from '../../db/write-transaction.js';

export type StatusClass = KeyUsageTable['class'];
export const STATUS_CLASSES: StatusClass[] = ['2xx', '3xx', '4xx', '429', '5xx'];

export interface UsageRow {
  key_id: number;
  hour: number;
  class: StatusClass;
  count: number;
}

// Rows per INSERT: 4 parameters each, well inside SQLite's and PostgreSQL's parameter limits.
const INSERT_CHUNK = 500;

export function usageRepo(db: Kysely<Database>) {
  // Compiled once: a flush moves last_used_at for every key seen, and building the same UPDATE
  // per key took longer than running it (the flush holds the event loop while it writes).
  const touch = db
    .updateTable('api_keys')
    .set({ last_used_at: 0 })
    .where('id', '=', 0)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', 0)]))
    .compile();
  const touchWith = (keyId: number, at: number) => CompiledQuery.raw(touch.sql, [at, keyId, at]);

  return {
    /**
     * One transaction per flush: add the buffered counts (upsert on the primary key, so instances
     * flushing the same hour add up) and move `last_used_at` forward, never back.
     */
    async flush(rows: UsageRow[], lastUsed: Map<number, number>, deleteBefore?: number): Promise<void> {
      await writeTransaction(db, async (trx) => {
        for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
          await trx
            .insertInto('key_usage')
            .values(rows.slice(i, i + INSERT_CHUNK))
            .onConflict((oc) =>
              oc
                .columns(['key_id', 'hour', 'class'])
                .doUpdateSet((eb) => ({ count: eb('key_usage.count', '+', eb.ref('excluded.count')) })),
            )
            .execute();
        }
        for (const [keyId, at] of lastUsed) await trx.executeQuery(touchWith(keyId, at));
        if (deleteBefore !== undefined) {
          await trx.deleteFrom('key_usage').where('hour', '<', deleteBefore).execute();
        }
      });
    },

    /** Rows of some keys from `fromHour` on (the primary key serves this range scan). */
    since(keyIds: number[], fromHour: number): Promise<UsageRow[]> {
      if (keyIds.length === 0) return Promise.resolve([]);
      return db
        .selectFrom('key_usage')
        .select(['key_id', 'hour', 'class', 'count'])
        .where('key_id', 'in', keyIds)
        .where('hour', '>=', fromHour)
        .orderBy('key_id')
        .orderBy('hour')
        .execute();
    },
  };
}

export type UsageRepo = ReturnType<typeof usageRepo>;
