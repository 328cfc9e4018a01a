import type { Kysely } from 'kysely';
import type { Database, KeyUsageTable } from '../../db/types.js';

export type StatusClass = KeyUsageTable['class'];
export const STATUS_CLASSES: StatusClass[] = ['2xx', '3xx', '4xx', '429', '5xx'];

export interface UsageRow {
  key_id: number;
  hour: number;
  class: StatusClass;
  count: number;
}

export function usageRepo(db: Kysely<Database>) {
  return {
    /**
     * One transaction per flush: add the buffered counts (upsert on the primary key, so instances
     * flushing the same hour add up) and move `last_used_at` forward, never back.
     */
    async flush(rows: UsageRow[], lastUsed: Map<number, number>, deleteBefore?: number): Promise<void> {
      await db.transaction().execute(async (trx) => {
        for (const row of rows) {
          await trx
            .insertInto('key_usage')
            .values(row)
            .onConflict((oc) =>
              oc
                .columns(['key_id', 'hour', 'class'])
                .doUpdateSet((eb) => ({ count: eb('key_usage.count', '+', eb.ref('excluded.count')) })),
            )
            .execute();
        }
        for (const [keyId, at] of lastUsed) {
          await trx
            .updateTable('api_keys')
            .set({ last_used_at: at })
            .where('id', '=', keyId)
            .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
            .execute();
        }
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
