import type { Kysely } from 'kysely';
import type Provider from 'oidc-provider';
import type { Database } from '../../db/types.js';
import type { App } from '../../http/app-types.js';
import type { Broadcast } from '../../http/broadcast.js';
import type { AccountsService } from '../accounts/service.js';
import { privatePages } from '../portal/session-auth.js';
import type { AppsRepo } from '../apps/repo.js';
import type { UsersRepo } from '../users/repo.js';
import { storeAdapterFactory } from './adapter.js';
import { interactionRoutes } from './interactions.js';
import { mountProvider } from './mount.js';
import { createProvider, readSecrets, type OAuthSecrets } from './provider.js';
import { oauthStoreRepo, type OAuthStoreRepo } from './store-repo.js';
import { CachedAccessTokens } from './verifier.js';

export interface OAuthServerDeps {
  db: Kysely<Database>;
  /** the service's public origin (PUBLIC_BASE_URL): the issuer of every token */
  issuer: string;
  apps: AppsRepo;
  users: UsersRepo;
  now: () => number;
  trustProxy: boolean;
  onError: (err: unknown) => void;
  /** revocations reach every instance's token cache through it */
  broadcast?: Broadcast;
}

/** The authorization server with its storage and the /v1 token verifier, ready to mount. */
export class OAuthServer {
  readonly provider: Provider;
  readonly verifier: CachedAccessTokens;
  readonly store: OAuthStoreRepo;

  private readonly now: () => number;

  private constructor(
    deps: OAuthServerDeps,
    private readonly secrets: OAuthSecrets,
  ) {
    this.now = deps.now;
    this.store = oauthStoreRepo(deps.db);
    this.verifier = new CachedAccessTokens(this.store, deps.apps, deps.now, deps.onError, deps.broadcast);
    const adapter = storeAdapterFactory({
      store: this.store,
      apps: deps.apps,
      now: deps.now,
      revocations: this.verifier,
    });
    this.provider = createProvider({
      issuer: deps.issuer,
      adapter,
      store: this.store,
      users: deps.users,
      secrets,
      now: deps.now,
      trustProxy: deps.trustProxy,
    });
    this.provider.on('server_error', (_ctx, err) => deps.onError(err));
  }

  static async create(deps: OAuthServerDeps): Promise<OAuthServer> {
    return new OAuthServer(deps, await readSecrets(deps.db));
  }

  /** The provider's endpoints and metadata, and the sign-in and consent pages. */
  async register(app: App, accounts: AccountsService): Promise<void> {
    await mountProvider(app, this.provider);
    await app.register(async (pages: App) => {
      // the sign-in and consent pages: same headers as the portal's, for the same forms
      privatePages(pages);
      interactionRoutes(this.provider, accounts, this.secrets.cookieSecret)(pages);
    });
  }

  /** Everything an app holds stops working (the app was deleted). */
  async revokeClient(clientId: string): Promise<void> {
    await this.store.deleteByClient(clientId);
    this.verifier.clientDeleted(clientId);
  }

  /** A user takes back every grant they gave an app ("Authorized apps"). */
  async revokeGrantsOf(userId: number, clientId: string): Promise<number> {
    const revoked = await this.store.revokeGrantsOfUser(userId, clientId, this.now());
    for (const grantId of revoked) this.verifier.grantRevoked(grantId);
    return revoked.length;
  }
}
