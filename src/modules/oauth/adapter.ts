import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { AppsRepo } from '../apps/repo.js';
import { clientMetadataOf } from './client-metadata.js';
import type { OAuthStoreRepo } from './store-repo.js';

/** Told when the store drops tokens, so the verifier's cache forgets them at once. */
export interface RevocationListener {
  tokenDestroyed(id: string): void;
  grantRevoked(grantId: string): void;
}

export interface AdapterDeps {
  store: OAuthStoreRepo;
  apps: AppsRepo;
  now: () => number;
  revocations: RevocationListener;
}

/**
 * An id or uid holding U+0000 was never stored (the provider's ids are random base64url, client ids
 * `app_` and hex) and PostgreSQL's text cannot hold one: asking the database would be an error, a
 * 500 for `client_id=%00`, so such a lookup finds nothing and a removal removes nothing.
 */
const neverStored = (id: string): boolean => id.includes('\u0000');

/** Expired rows are swept at most this often, by whichever write comes next (no timer to stop). */
const SWEEP_EVERY_MS = 60_000;

/**
 * oidc-provider's storage over our database (SQLite or PostgreSQL): one `oauth_store` row per
 * (model, id). Clients are not stored here: they are the apps of `oauth_apps`, read on demand.
 */
export function storeAdapterFactory(deps: AdapterDeps): (model: string) => Adapter {
  const { store, apps, now, revocations } = deps;
  let lastSweep = 0;

  const parse = (found: { payload: string; consumedAt: number | null } | undefined) => {
    if (!found) return undefined;
    const payload = JSON.parse(found.payload) as AdapterPayload;
    if (found.consumedAt !== null) payload.consumed = Math.floor(found.consumedAt / 1000);
    return payload;
  };

  const clientAdapter: Adapter = {
    async find(id) {
      if (neverStored(id)) return undefined;
      const app = await apps.findByClientId(id);
      return app && clientMetadataOf(app);
    },
    upsert: () => Promise.reject(new Error('apps are registered in the portal, not through the provider')),
    findByUid: () => Promise.resolve(undefined),
    findByUserCode: () => Promise.resolve(undefined),
    consume: () => Promise.resolve(),
    destroy: () => Promise.resolve(),
    revokeByGrantId: () => Promise.resolve(),
  };

  return (model: string): Adapter => {
    if (model === 'Client') return clientAdapter;
    return {
      async upsert(id, payload, expiresIn) {
        const at = now();
        if (at - lastSweep > SWEEP_EVERY_MS) {
          lastSweep = at;
          await store.sweep(at);
        }
        const row = {
          model,
          id,
          payload: JSON.stringify(payload),
          grantId: payload.grantId ?? null,
          uid: payload.uid ?? null,
          clientId: payload.clientId ?? null,
          accountId: model === 'Grant' ? (payload.accountId ?? null) : null,
          expiresAt: expiresIn ? at + expiresIn * 1000 : null,
        };
        // a grant is saved when the user consents (interactions.ts): the app is told
        if (model === 'Grant') await store.saveGrant(row, at);
        else await store.upsert(row);
      },
      async find(id) {
        if (neverStored(id)) return undefined;
        return parse(await store.find(model, id, now()));
      },
      async findByUid(uid) {
        if (neverStored(uid)) return undefined;
        return parse(await store.findByUid(model, uid, now()));
      },
      // the device flow is off: there are no user codes
      findByUserCode: () => Promise.resolve(undefined),
      async consume(id) {
        if (!neverStored(id)) await store.consume(model, id, now());
      },
      async destroy(id) {
        if (!neverStored(id)) await store.destroy(model, id);
        revocations.tokenDestroyed(id);
        if (model === 'Grant') revocations.grantRevoked(id);
      },
      async revokeByGrantId(grantId) {
        if (!neverStored(grantId)) await store.revokeGrants([grantId]);
        revocations.grantRevoked(grantId);
      },
    };
  };
}
