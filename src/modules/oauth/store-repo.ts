import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { Database } from '../../db/types.js';
import { isScope, type Scope } from '../../http/scopes.js';
import { writeTransaction } from '../../db/write-transaction.js';
import { appsRepo } from '../apps/repo.js';
import { eventOf } from '../events/define.js';
import { emit } from '../events/emit.js';
import { AUTHORIZATION_GRANTED, AUTHORIZATION_REVOKED } from './events.js';

/** What the adapter writes besides the payload: the columns its lookups and sweeps use. */
export interface StoreRow {
  model: string;
  id: string;
  payload: string;
  grantId: string | null;
  uid: string | null;
  clientId: string | null;
  accountId: string | null;
  expiresAt: number | null;
}

export interface FoundPayload {
  payload: string;
  consumedAt: number | null;
}

/** The grants of one account (the authorized-apps page). */
export interface GrantRow {
  id: string;
  client_id: string | null;
  payload: string;
  last_used_at: number | null;
}

/** The scopes a grant's payload (oidc-provider's Grant) holds for the OpenID resource. */
export function grantedScopes(payload: string): Scope[] {
  const parsed = JSON.parse(payload) as { openid?: { scope?: string } };
  return (parsed.openid?.scope ?? '').split(' ').filter(isScope);
}

export const TOKEN_MODELS = ['AccessToken', 'ClientCredentials'] as const;

type GrantEvent = typeof AUTHORIZATION_GRANTED;

/** Tells the app behind `data.client_id` (none if it is gone) of a user's grant, in `trx`. */
async function tellApp(
  trx: Kysely<Database>,
  definition: GrantEvent,
  data: Static<GrantEvent['schema']>,
  now: number,
): Promise<void> {
  const app = await appsRepo(trx).findByClientId(data.client_id);
  if (app) await emit(trx, [eventOf(definition, data, { appId: app.id })], now);
}

/** The only SQL over `oauth_store` (oidc-provider's storage, see adapter.ts). */
export function oauthStoreRepo(db: Kysely<Database>) {
  const live = (now: number) => (eb: ExpressionBuilder<Database, 'oauth_store'>) =>
    eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]);
  const table = () => db.selectFrom('oauth_store');

  return {
    async upsert(row: StoreRow): Promise<void> {
      const values = {
        payload: row.payload,
        grant_id: row.grantId,
        uid: row.uid,
        client_id: row.clientId,
        account_id: row.accountId,
        expires_at: row.expiresAt,
      };
      await db
        .insertInto('oauth_store')
        .values({ model: row.model, id: row.id, ...values })
        .onConflict((oc) => oc.columns(['model', 'id']).doUpdateSet(values))
        .execute();
    },

    async find(model: string, id: string, now: number): Promise<FoundPayload | undefined> {
      const row = await table()
        .select(['payload', 'consumed_at'])
        .where('model', '=', model)
        .where('id', '=', id)
        .where(live(now))
        .executeTakeFirst();
      return row && { payload: row.payload, consumedAt: row.consumed_at };
    },

    async findByUid(model: string, uid: string, now: number): Promise<FoundPayload | undefined> {
      const row = await table()
        .select(['payload', 'consumed_at'])
        .where('model', '=', model)
        .where('uid', '=', uid)
        .where(live(now))
        .executeTakeFirst();
      return row && { payload: row.payload, consumedAt: row.consumed_at };
    },

    /** An access token of either kind (user or client_credentials) by its value: one indexed read. */
    findToken(id: string, now: number): Promise<{ model: string; payload: string } | undefined> {
      return table()
        .select(['model', 'payload'])
        .where('model', 'in', TOKEN_MODELS)
        .where('id', '=', id)
        .where(live(now))
        .executeTakeFirst();
    },

    async consume(model: string, id: string, now: number): Promise<void> {
      await db
        .updateTable('oauth_store')
        .set({ consumed_at: now })
        .where('model', '=', model)
        .where('id', '=', id)
        .execute();
    },

    async destroy(model: string, id: string): Promise<void> {
      await db.deleteFrom('oauth_store').where('model', '=', model).where('id', '=', id).execute();
    },

    /** Every row of these grants, the grants included (reuse detection, revocation, "revoke app"). */
    async revokeGrants(grantIds: readonly string[]): Promise<void> {
      if (grantIds.length === 0) return;
      const ids = [...grantIds];
      await db
        .deleteFrom('oauth_store')
        .where((eb) =>
          eb.or([eb('grant_id', 'in', ids), eb.and([eb('model', '=', 'Grant'), eb('id', 'in', ids)])]),
        )
        .execute();
    },

    /**
     * A user takes back every grant they gave an app, in one transaction that also tells the app
     * (`authorization.revoked`). Returns the ids of the grants that went.
     */
    async revokeGrantsOfUser(userId: number, clientId: string, now: number): Promise<string[]> {
      return writeTransaction(db, async (trx) => {
        const store = oauthStoreRepo(trx);
        const grants = (await store.grantsOf(String(userId), now)).filter((g) => g.client_id === clientId);
        if (grants.length === 0) return [];
        const ids = grants.map((g) => g.id);
        await store.revokeGrants(ids);
        const scopes = [...new Set(grants.flatMap((g) => grantedScopes(g.payload)))];
        await tellApp(trx, AUTHORIZATION_REVOKED, { user_id: userId, client_id: clientId, scopes }, now);
        return ids;
      });
    },

    /** A grant saved at consent, told to its app (`authorization.granted`) in the same transaction. */
    async saveGrant(row: StoreRow, now: number): Promise<void> {
      await writeTransaction(db, async (trx) => {
        await oauthStoreRepo(trx).upsert(row);
        const { clientId, accountId } = row;
        if (clientId === null || accountId === null) return;
        const data = { user_id: Number(accountId), client_id: clientId, scopes: grantedScopes(row.payload) };
        await tellApp(trx, AUTHORIZATION_GRANTED, data, now);
      });
    },

    /** Everything an app holds: its grants, codes and tokens (the app was deleted). */
    async deleteByClient(clientId: string): Promise<void> {
      await db.deleteFrom('oauth_store').where('client_id', '=', clientId).execute();
    },

    async sweep(now: number): Promise<number> {
      const result = await db.deleteFrom('oauth_store').where('expires_at', '<=', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    grantsOf(accountId: string, now: number): Promise<GrantRow[]> {
      return table()
        .select(['id', 'client_id', 'payload', 'last_used_at'])
        .where('account_id', '=', accountId)
        .where('model', '=', 'Grant')
        .where(live(now))
        .orderBy('id')
        .execute();
    },

    /** The live grants of these accounts to these apps (the webhook dispatcher's audience check). */
    grantsBetween(accountIds: readonly string[], clientIds: readonly string[], now: number) {
      if (accountIds.length === 0 || clientIds.length === 0) return Promise.resolve([]);
      return table()
        .select(['account_id', 'client_id', 'payload'])
        .where('model', '=', 'Grant')
        .where('account_id', 'in', [...accountIds])
        .where('client_id', 'in', [...clientIds])
        .where(live(now))
        .execute();
    },

    /** The newest live grant of an account to an app: a remembered consent outlives the browser session. */
    async latestGrant(accountId: string, clientId: string, now: number): Promise<string | undefined> {
      const row = await table()
        .select('id')
        .where('account_id', '=', accountId)
        .where('client_id', '=', clientId)
        .where('model', '=', 'Grant')
        .where(live(now))
        .orderBy('expires_at', 'desc')
        .executeTakeFirst();
      return row?.id;
    },

    async touchGrant(grantId: string, now: number): Promise<void> {
      await db
        .updateTable('oauth_store')
        .set({ last_used_at: now })
        .where('model', '=', 'Grant')
        .where('id', '=', grantId)
        .execute();
    },
  };
}

export type OAuthStoreRepo = ReturnType<typeof oauthStoreRepo>;
