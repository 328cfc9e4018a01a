import type { Kysely, Selectable } from 'kysely';
import type { Database, OAuthAppsTable } from '../../db/types.js';
import { writeTransaction } from '../../db/write-transaction.js';
import { emit } from '../events/emit.js';
import type { Subscription } from '../keys/tiers.js';
import { APP_CREATED, APP_DELETED, APP_SECRET_ROTATED, APP_UPDATED, appEvent } from './events.js';

export type AppRow = Selectable<OAuthAppsTable>;

/** An app with what the authorization server needs of its owner (the plan its tokens spend). */
export interface AppWithOwner extends AppRow {
  owner_subscription: Subscription;
  owner_is_partner: number;
}

export interface NewApp {
  clientId: string;
  ownerId: number;
  name: string;
  kind: 'public' | 'confidential';
  redirectUris: string[];
  homepageUrl: string | null;
  logoUrl: string | null;
  secretHash: string | null;
  now: number;
}

export type AppChanges = Partial<Pick<NewApp, 'name' | 'redirectUris' | 'homepageUrl' | 'logoUrl'>>;

export function appsRepo(db: Kysely<Database>) {
  return {
    async create(app: NewApp): Promise<AppRow> {
      return writeTransaction(db, async (trx) => {
        const row = await trx
          .insertInto('oauth_apps')
          .values({
            client_id: app.clientId,
            owner_id: app.ownerId,
            name: app.name,
            kind: app.kind,
            redirect_uris: JSON.stringify(app.redirectUris),
            homepage_url: app.homepageUrl,
            logo_url: app.logoUrl,
            secret_hash: app.secretHash,
            created_at: app.now,
            updated_at: app.now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        await emit(trx, [appEvent(APP_CREATED, row)], app.now);
        return row;
      });
    },

    /** Every app, or the apps of one owner, newest first. */
    list(ownerId?: number): Promise<AppRow[]> {
      let query = db.selectFrom('oauth_apps').selectAll().orderBy('id', 'desc');
      if (ownerId !== undefined) query = query.where('owner_id', '=', ownerId);
      return query.execute();
    },

    find(id: number): Promise<AppRow | undefined> {
      return db.selectFrom('oauth_apps').selectAll().where('id', '=', id).executeTakeFirst();
    },

    findByClientId(clientId: string): Promise<AppWithOwner | undefined> {
      return db
        .selectFrom('oauth_apps')
        .innerJoin('users', 'users.id', 'oauth_apps.owner_id')
        .selectAll('oauth_apps')
        .select(['users.subscription as owner_subscription', 'users.is_partner as owner_is_partner'])
        .where('oauth_apps.client_id', '=', clientId)
        .executeTakeFirst();
    },

    /** The apps behind these client ids (the authorized-apps page). */
    findByClientIds(clientIds: string[]): Promise<AppRow[]> {
      if (clientIds.length === 0) return Promise.resolve([]);
      return db.selectFrom('oauth_apps').selectAll().where('client_id', 'in', clientIds).execute();
    },

    async update(id: number, changes: AppChanges, now: number): Promise<AppRow | undefined> {
      return writeTransaction(db, async (trx) => {
        const row = await trx
          .updateTable('oauth_apps')
          .set({
            ...(changes.name !== undefined ? { name: changes.name } : {}),
            ...(changes.redirectUris !== undefined
              ? { redirect_uris: JSON.stringify(changes.redirectUris) }
              : {}),
            ...(changes.homepageUrl !== undefined ? { homepage_url: changes.homepageUrl } : {}),
            ...(changes.logoUrl !== undefined ? { logo_url: changes.logoUrl } : {}),
            updated_at: now,
          })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirst();
        if (row) await emit(trx, [appEvent(APP_UPDATED, row)], now);
        return row;
      });
    },

    async setSecretHash(id: number, secretHash: string, now: number): Promise<void> {
      await writeTransaction(db, async (trx) => {
        const row = await trx
          .updateTable('oauth_apps')
          .set({ secret_hash: secretHash, updated_at: now })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirst();
        if (row) await emit(trx, [appEvent(APP_SECRET_ROTATED, row)], now);
      });
    },

    async delete(id: number, now = Date.now()): Promise<AppRow | undefined> {
      return writeTransaction(db, async (trx) => {
        const row = await trx.deleteFrom('oauth_apps').where('id', '=', id).returningAll().executeTakeFirst();
        if (row) await emit(trx, [appEvent(APP_DELETED, row)], now);
        return row;
      });
    },
  };
}

export type AppsRepo = ReturnType<typeof appsRepo>;

export const redirectUrisOf = (app: AppRow): string[] => JSON.parse(app.redirect_uris) as string[];
