import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.js';
import { withId } from './helpers.js';

/**
 * Webhooks (DESIGN.md, "Events"). `webhooks`: an endpoint of an app (OAuth tokens, the app's
 * pages) or of a user (their API keys), with the event types it wants (a JSON list, or `*`).
 * `webhook_secrets`: the `whsec_` signing secrets; the current one has no `expires_at`, a rotated
 * one keeps signing until its `expires_at` (24 h overlap). A secret is shown once, at creation or
 * rotation, and only read again to sign. `webhook_deliveries`: one row per (webhook, event), made
 * by the dispatcher from the outbox and claimed by `hub worker` by `next_attempt_at`;
 * `webhook_attempts`: every send of a delivery (the delivery log, 30 days).
 */
export function up(dialect: Dialect) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await withId(db.schema.createTable('webhooks'), dialect)
      // exactly one owner: an app, or the user whose API keys manage it
      .addColumn('app_id', 'integer', (c) => c.references('oauth_apps.id').onDelete('cascade'))
      .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('url', 'varchar(2048)', (c) => c.notNull())
      // JSON array of event types, or the string `*` for every type
      .addColumn('events', 'text', (c) => c.notNull())
      .addColumn('description', 'varchar(200)')
      .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
      // why it was disabled: 'gone' (a 410), 'failing' (5 days of failures), 'owner'
      .addColumn('disabled_reason', 'varchar(32)')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      // the first failure of the current run of failures (null once a delivery succeeds)
      .addColumn('failing_since', 'bigint')
      .addCheckConstraint('webhooks_owner', sql`(app_id is null) <> (user_id is null)`)
      .execute();
    await db.schema.createIndex('webhooks_app').on('webhooks').columns(['app_id', 'id']).execute();
    await db.schema.createIndex('webhooks_user').on('webhooks').columns(['user_id', 'id']).execute();

    await withId(db.schema.createTable('webhook_secrets'), dialect)
      .addColumn('webhook_id', 'integer', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
      .addColumn('secret', 'varchar(128)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      // null: the current secret; else it stops signing at this time
      .addColumn('expires_at', 'bigint')
      .execute();
    await db.schema
      .createIndex('webhook_secrets_webhook')
      .on('webhook_secrets')
      .column('webhook_id')
      .execute();

    await withId(db.schema.createTable('webhook_deliveries'), dialect, true)
      .addColumn('webhook_id', 'integer', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
      // the outbox position (events.id) of the event sent
      .addColumn('event_id', 'bigint', (c) => c.notNull())
      .addColumn('status', 'varchar(16)', (c) =>
        c.notNull().check(sql`status in ('pending', 'delivering', 'succeeded', 'failed', 'dead')`),
      )
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      // when a worker may send it next (null: nothing left to do)
      .addColumn('next_attempt_at', 'bigint')
      // a worker's claim: others leave it alone until claimed_until
      .addColumn('claimed_until', 'bigint')
      .addColumn('claimed_by', 'varchar(64)')
      .addColumn('last_status_code', 'integer')
      .addColumn('last_latency_ms', 'integer')
      .addColumn('last_response', 'text')
      .addColumn('last_error', 'varchar(500)')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('delivered_at', 'bigint')
      // one delivery per webhook and event: the dispatcher may run twice over the same events
      .addUniqueConstraint('webhook_deliveries_event', ['webhook_id', 'event_id'])
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_due')
      .on('webhook_deliveries')
      .columns(['next_attempt_at', 'id'])
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_log')
      .on('webhook_deliveries')
      .columns(['webhook_id', 'created_at'])
      .execute();

    await withId(db.schema.createTable('webhook_attempts'), dialect, true)
      .addColumn('delivery_id', 'bigint', (c) =>
        c.notNull().references('webhook_deliveries.id').onDelete('cascade'),
      )
      .addColumn('webhook_id', 'integer', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('latency_ms', 'integer')
      // JSON object of the response headers kept (first few), and the first bytes of the body
      .addColumn('response_headers', 'text')
      .addColumn('response_excerpt', 'text')
      .addColumn('error', 'varchar(500)')
      .execute();
    await db.schema
      .createIndex('webhook_attempts_delivery')
      .on('webhook_attempts')
      .columns(['delivery_id', 'id'])
      .execute();
    await db.schema
      .createIndex('webhook_attempts_started')
      .on('webhook_attempts')
      .column('started_at')
      .execute();
  };
}

export function down() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.dropTable('webhook_attempts').ifExists().execute();
    await db.schema.dropTable('webhook_deliveries').ifExists().execute();
    await db.schema.dropTable('webhook_secrets').ifExists().execute();
    await db.schema.dropTable('webhooks').ifExists().execute();
  };
}
