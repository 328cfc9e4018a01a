import type { Kysely } from 'kysely';
import Provider, { type Configuration, type JWK, type KoaContextWithOIDC } from 'oidc-provider';
import { OAUTH_COOKIE_SECRET, OAUTH_SIGNING_KEY } from '../../db/migrations/0011_oauth.js';
import type { Database } from '../../db/types.js';
import { OAUTH_AUTHORIZE_PATH, OAUTH_PREFIX, OAUTH_TOKEN_PATH } from '../../http/paths.js';
import { SCOPE_NAMES } from '../../http/scopes.js';
import { secretMatches } from '../apps/secret.js';
import type { UsersRepo } from '../users/repo.js';
import type { Adapter } from 'oidc-provider';
import { renderOAuthError } from './pages.js';
import type { OAuthStoreRepo } from './store-repo.js';

export const INTERACTION_PATH = `${OAUTH_PREFIX}/interaction`;

export const ACCESS_TOKEN_TTL_S = 3600;
export const AUTHORIZATION_CODE_TTL_S = 60;
export const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;

export interface ProviderDeps {
  issuer: string;
  adapter: (model: string) => Adapter;
  store: OAuthStoreRepo;
  users: UsersRepo;
  secrets: OAuthSecrets;
  now: () => number;
  trustProxy: boolean;
}

export interface OAuthSecrets {
  jwk: JWK;
  cookieSecret: string;
}

/** The signing key and cookie secret migration 0011 made for this database. */
export async function readSecrets(db: Kysely<Database>): Promise<OAuthSecrets> {
  const rows = await db
    .selectFrom('meta')
    .select(['key', 'value'])
    .where('key', 'in', [OAUTH_SIGNING_KEY, OAUTH_COOKIE_SECRET])
    .execute();
  const value = (key: string) => {
    const found = rows.find((r) => r.key === key)?.value;
    if (!found) throw new Error(`the database has no ${key}: run \`hub migrate\``);
    return found;
  };
  return { jwk: JSON.parse(value(OAUTH_SIGNING_KEY)) as JWK, cookieSecret: value(OAUTH_COOKIE_SECRET) };
}

const isUserId = (sub: string) => /^[1-9]\d{0,9}$/.test(sub);

/**
 * The authorization server: oidc-provider configured for the platform's rules (DESIGN.md,
 * "Identity and OAuth"). Its issuer is the service's origin, so the metadata is at the root
 * `/.well-known/…` paths; every endpoint sits under /api-platform/oauth.
 */
export function createProvider(deps: ProviderDeps): Provider {
  const { jwk, cookieSecret } = deps.secrets;
  const configuration: Configuration = {
    adapter: deps.adapter,
    jwks: { keys: [jwk] },
    cookies: { keys: [cookieSecret] },
    scopes: SCOPE_NAMES,
    claims: { openid: ['sub'], identify: ['preferred_username', 'picture'] },
    responseTypes: ['code'],
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    // every client, public or confidential, sends an S256 code challenge (the only method offered)
    pkce: { required: () => true },
    allowOmittingSingleRegisteredRedirectUri: false,
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      id_token_signed_response_alg: 'ES256',
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      revocation: {
        enabled: true,
        // a client revokes only its own tokens
        allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
      },
      introspection: {
        enabled: true,
        // RFC 7662 for resource servers and back ends: confidential clients only, their own tokens
        allowedPolicy: (_ctx, client, token) =>
          client.clientAuthMethod !== 'none' && token.clientId === client.clientId,
      },
      userinfo: { enabled: true },
      rpInitiatedLogout: { enabled: false },
      resourceIndicators: { enabled: false },
    },
    // a refresh token is spent by its use; presenting a spent one again revokes the whole grant
    rotateRefreshToken: true,
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: AUTHORIZATION_CODE_TTL_S,
      ClientCredentials: ACCESS_TOKEN_TTL_S,
      IdToken: ACCESS_TOKEN_TTL_S,
      RefreshToken: REFRESH_TOKEN_TTL_S,
      Grant: 365 * 24 * 3600,
      Interaction: 3600,
      Session: 14 * 24 * 3600,
    },
    routes: {
      authorization: OAUTH_AUTHORIZE_PATH,
      token: OAUTH_TOKEN_PATH,
      pushed_authorization_request: `${OAUTH_PREFIX}/par`,
      revocation: `${OAUTH_PREFIX}/revoke`,
      introspection: `${OAUTH_PREFIX}/introspect`,
      jwks: `${OAUTH_PREFIX}/jwks`,
      userinfo: `${OAUTH_PREFIX}/userinfo`,
      end_session: `${OAUTH_PREFIX}/logout`,
    },
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}` },
    // A consent outlives the browser session: the user's newest grant to this app is reused, so only
    // scopes it does not hold yet are asked for again.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const clientId = ctx.oidc.client?.clientId;
      const accountId = ctx.oidc.session?.accountId;
      if (!clientId || !accountId) return undefined;
      const grantId =
        ctx.oidc.result?.consent?.grantId ??
        ctx.oidc.session?.grantIdFor(clientId) ??
        (await deps.store.latestGrant(accountId, clientId, deps.now()));
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    findAccount: async (_ctx, sub) => {
      if (!isUserId(sub)) return undefined;
      const user = await deps.users.findById(Number(sub));
      if (!user) return undefined;
      return {
        accountId: sub,
        claims: () => ({ sub, preferred_username: user.username, picture: `/avatars/${sub}.png` }),
      };
    },
    // browsers may call the token endpoint from an app's own origin (a single-page app)
    clientBasedCORS: (_ctx, origin, client) =>
      client.redirectUris?.some((uri) => new URL(uri).origin === origin) ?? false,
    renderError: renderOAuthError,
  };
  const provider = new Provider(deps.issuer, configuration);
  provider.proxy = deps.trustProxy;
  // The client's `client_secret` is the stored SHA-256 (see client-metadata.ts): compare hashes.
  provider.Client.prototype.compareClientSecret = function compareHashed(actual: string) {
    return secretMatches(this.clientSecret, actual);
  };
  return provider;
}
