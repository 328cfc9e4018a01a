import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.js';
import { withId } from './helpers.js';

/**
 * The outbox (DESIGN.md, "Events"): one row per event, written in the same transaction as the
 * change it tells. `id` orders events in commit order (emitters serialise on PostgreSQL, see
 * modules/events/outbox.ts), so it is the webhook id, the SSE id and the pull cursor.
 */
export function up(dialect: Dialect) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await withId(db.schema.createTable('events'), dialect, true)
      .addColumn('type', 'varchar(64)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      // the event's `data` object, JSON
      .addColumn('data', 'text', (c) => c.notNull())
      // who may see it: null = every reader; else only apps acting for this user ...
      .addColumn('user_id', 'integer')
      // ... or only this app (its own webhooks, its keys)
      .addColumn('app_id', 'integer')
      // the scope a reader needs beyond the audience (e.g. economy:read), null = none
      .addColumn('scope', 'varchar(32)')
      .execute();
    await db.schema.createIndex('events_created_at').on('events').column('created_at').execute();
  };
}

export function down() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.dropTable('events').ifExists().execute();
  };
}
