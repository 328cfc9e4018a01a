import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.js';
import { withId } from './helpers.js';

/**
 * The authorization server's tables. `oauth_apps`: the apps developers register in the portal
 * (OAuth clients; a confidential app's secret only as a SHA-256). `oauth_store`: everything
 * oidc-provider keeps (grants, codes, tokens, sessions, interactions), one row per (model, id) with
 * the payload as JSON and the columns its lookups need; rows past `expires_at` are swept.
 * The server's ID-token signing key (ES256) and cookie-signing secret are made here, once per
 * database, so every instance serving it signs and verifies alike.
 */
export const OAUTH_SIGNING_KEY = 'oauth_signing_jwk';
export const OAUTH_COOKIE_SECRET = 'oauth_cookie_secret';

export function up(dialect: Dialect) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await withId(db.schema.createTable('oauth_apps'), dialect)
      .addColumn('client_id', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('name', 'varchar(100)', (c) => c.notNull())
      // 'public' (no secret, e.g. a single-page or mobile app) or 'confidential'
      .addColumn('kind', 'varchar(16)', (c) => c.notNull())
      // JSON array of exact redirect URIs
      .addColumn('redirect_uris', 'text', (c) => c.notNull())
      .addColumn('homepage_url', 'varchar(500)')
      .addColumn('logo_url', 'varchar(500)')
      .addColumn('secret_hash', 'char(64)')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('oauth_apps_owner').on('oauth_apps').column('owner_id').execute();

    await db.schema
      .createTable('oauth_store')
      .addColumn('model', 'varchar(32)', (c) => c.notNull())
      .addColumn('id', 'varchar(255)', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('grant_id', 'varchar(255)')
      .addColumn('uid', 'varchar(255)')
      .addColumn('client_id', 'varchar(64)')
      .addColumn('account_id', 'varchar(64)')
      .addColumn('expires_at', 'bigint')
      .addColumn('consumed_at', 'bigint')
      // grants only: when a token of the grant was last used on the API (the authorized-apps page)
      .addColumn('last_used_at', 'bigint')
      .addPrimaryKeyConstraint('oauth_store_pk', ['model', 'id'])
      .execute();
    await db.schema.createIndex('oauth_store_grant').on('oauth_store').column('grant_id').execute();
    await db.schema.createIndex('oauth_store_uid').on('oauth_store').column('uid').execute();
    await db.schema.createIndex('oauth_store_client').on('oauth_store').column('client_id').execute();
    await db.schema
      .createIndex('oauth_store_account')
      .on('oauth_store')
      .columns(['account_id', 'model'])
      .execute();
    await db.schema.createIndex('oauth_store_expires').on('oauth_store').column('expires_at').execute();
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = {
      ...privateKey.export({ format: 'jwk' }),
      kid: randomBytes(8).toString('hex'),
      alg: 'ES256',
      use: 'sig',
    };
    await (db as Kysely<{ meta: { key: string; value: string } }>)
      .insertInto('meta')
      .values([
        { key: OAUTH_SIGNING_KEY, value: JSON.stringify(jwk) },
        { key: OAUTH_COOKIE_SECRET, value: randomBytes(32).toString('base64url') },
      ])
      .execute();
  };
}

export function down() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.dropTable('oauth_store').ifExists().execute();
    await db.schema.dropTable('oauth_apps').ifExists().execute();
    await (db as Kysely<{ meta: { key: string; value: string } }>)
      .deleteFrom('meta')
      .where('key', 'in', [OAUTH_SIGNING_KEY, OAUTH_COOKIE_SECRET])
      .execute();
  };
}
