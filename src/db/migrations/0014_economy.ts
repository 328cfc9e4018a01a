import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.js';
import { withId } from './helpers.js';

/** The account every minted coin comes from; created first, so it has the lowest id. */
export const ISSUANCE_ACCOUNT = 'issuance';

const APPEND_ONLY = ['economy_transactions', 'economy_entries'] as const;

/**
 * The hub economy: a double-entry ledger of coins. `economy_accounts` holds one account per user
 * (created on first use) and the issuance account minted coins come from; its balance is the
 * running sum of its entries, kept for the overdraft check. `economy_transactions` is one row per
 * movement (a transfer, a reward, an operator grant) and `economy_entries` its legs, which sum to
 * zero. Movements and entries are append-only: a trigger refuses UPDATE and DELETE in both
 * dialects (and TRUNCATE on PostgreSQL), so a correction is always a new movement.
 */
export function up(dialect: Dialect) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await withId(db.schema.createTable('economy_accounts'), dialect)
      .addColumn('user_id', 'integer', (c) => c.unique().references('users.id'))
      .addColumn('system', 'varchar(32)', (c) => c.unique())
      .addColumn('balance', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      // exactly one owner; a user's balance never goes below zero (the issuance account's does)
      .addCheckConstraint(
        'economy_accounts_owner',
        sql`(user_id is null) <> (system is null) and (system is not null or balance >= 0)`,
      )
      .execute();
    await sql`insert into economy_accounts (system, balance, updated_at) values (${ISSUANCE_ACCOUNT}, 0, 0)`.execute(
      db,
    );

    await withId(db.schema.createTable('economy_transactions'), dialect, true)
      // 'transfer' between users; 'reward' minted by a rule of the ingest pipeline; 'grant' by an operator
      .addColumn('kind', 'varchar(16)', (c) => c.notNull())
      .addColumn('from_user_id', 'integer', (c) => c.references('users.id'))
      .addColumn('to_user_id', 'integer', (c) => c.notNull().references('users.id'))
      .addColumn('amount', 'bigint', (c) => c.notNull().check(sql`amount > 0`))
      .addColumn('note', 'varchar(200)')
      .addColumn('reason', 'varchar(200)')
      // the transfer's Idempotency-Key, written in the transfer's own transaction
      .addColumn('idempotency_owner', 'varchar(64)')
      .addColumn('idempotency_key', 'varchar(255)')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('economy_transactions_idempotency', ['idempotency_owner', 'idempotency_key'])
      .execute();

    await withId(db.schema.createTable('economy_entries'), dialect, true)
      .addColumn('transaction_id', 'bigint', (c) => c.notNull().references('economy_transactions.id'))
      .addColumn('account_id', 'integer', (c) => c.notNull().references('economy_accounts.id'))
      .addColumn('amount', 'bigint', (c) => c.notNull().check(sql`amount <> 0`))
      .addColumn('balance_after', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    // a user's history, newest first
    await db.schema
      .createIndex('economy_entries_account')
      .on('economy_entries')
      .columns(['account_id', 'id desc'])
      .execute();

    if (dialect === 'postgres') {
      await sql`create function economy_append_only() returns trigger language plpgsql as $$
        begin raise exception 'the economy ledger is append-only: % on % refused', tg_op, tg_table_name; end $$`.execute(
        db,
      );
      for (const table of APPEND_ONLY) {
        await sql`create trigger ${sql.id(`${table}_append_only`)} before update or delete on ${sql.id(table)}
          for each row execute function economy_append_only()`.execute(db);
        await sql`create trigger ${sql.id(`${table}_no_truncate`)} before truncate on ${sql.id(table)}
          for each statement execute function economy_append_only()`.execute(db);
      }
      return;
    }
    for (const table of APPEND_ONLY) {
      for (const op of ['update', 'delete'] as const) {
        await sql`create trigger ${sql.id(`${table}_no_${op}`)} before ${sql.raw(op)} on ${sql.id(table)}
          begin select raise(abort, ${sql.lit(`the economy ledger is append-only: ${op} on ${table} refused`)}); end`.execute(
          db,
        );
      }
    }
  };
}

export function down() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.dropTable('economy_entries').ifExists().execute();
    await db.schema.dropTable('economy_transactions').ifExists().execute();
    await db.schema.dropTable('economy_accounts').ifExists().execute();
    await sql`drop function if exists economy_append_only()`.execute(db).catch(() => undefined);
  };
}
