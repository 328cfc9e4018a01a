import type { Kysely } from 'kysely';

/**
 * A movement's entries, found by the movement: a transfer retried with a spent Idempotency-Key is
 * answered with the first transfer and its sender's balance after it, which is on its entry. Only
 * the (account_id, id) index of 0014 existed, so every such lookup scanned the whole ledger.
 */
export function up() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema
      .createIndex('economy_entries_transaction')
      .on('economy_entries')
      .column('transaction_id')
      .execute();
  };
}

export function down() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.dropIndex('economy_entries_transaction').ifExists().execute();
  };
}
