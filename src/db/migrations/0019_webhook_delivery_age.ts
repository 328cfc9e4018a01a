import type { Kysely } from 'kysely';

/**
 * The worker's hourly sweep drops webhook deliveries (and, by cascade, their attempts) past the 30
 * days the delivery log is kept; it finds them by age alone, which the (webhook_id, created_at)
 * index of 0017 cannot serve.
 */
export function up() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema
      .createIndex('webhook_deliveries_created')
      .on('webhook_deliveries')
      .columns(['created_at', 'id'])
      .execute();
  };
}

export function down() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.dropIndex('webhook_deliveries_created').ifExists().execute();
  };
}
