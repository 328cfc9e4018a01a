import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KeysRepo } from '../modules/keys/repo.js';
import { TIERS } from '../modules/keys/tiers.js';
import type { AccessTokenVerifier, VerifiedAccessToken } from './access-tokens.js';
import { resolveApiKey } from './api-key-auth.js';
import { assertOriginAllowed } from './cors.js';
import { CONTINUE, isPromise, type MaybePromise } from './pipeline-steps.js';
import { ProblemError } from './problem.js';
import { appStoreKeyOf } from './quota.js';
import type { AuthenticatedKey } from './request-context.js';
import { API_KEY_SCOPES, type Scope } from './scopes.js';

/** The realm of every bearer challenge (RFC 6750 §3). */
export const BEARER_REALM = 'hub';
const CHALLENGE = `Bearer realm="${BEARER_REALM}"`;
const INVALID_TOKEN_CHALLENGE = {
  'www-authenticate': `${CHALLENGE}, error="invalid_token"`,
};
const API_KEY_PREFIX = 'ghk_';

const missingToken = () =>
  new ProblemError(
    'missing_token',
    'Send an OAuth access token or an API key in the Authorization header: `Authorization: Bearer <token>`.',
    { headers: { 'www-authenticate': CHALLENGE } },
  );

const invalidToken = () =>
  new ProblemError('invalid_token', 'The access token is not valid, has expired or has been revoked.', {
    headers: INVALID_TOKEN_CHALLENGE,
  });

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, RFC 6750 §2.1). */
function bearerToken(header: string | undefined): string | undefined {
  if (!header || header.length < 8 || header.slice(0, 7).toLowerCase() !== 'bearer ') return undefined;
  const token = header.slice(7).trim();
  return token.length > 0 ? token : undefined;
}

function fromApiKey(request: FastifyRequest, key: AuthenticatedKey): boolean {
  assertOriginAllowed(request, key.allowedOrigins);
  request.apiKey = key;
  request.quotaSubject = key;
  request.principal = { kind: 'app', userId: null, appId: null, keyId: key.id, scopes: API_KEY_SCOPES };
  return CONTINUE;
}

function fromAccessToken(request: FastifyRequest, token: VerifiedAccessToken | undefined): boolean {
  if (!token) throw invalidToken();
  request.quotaSubject = {
    storeKey: appStoreKeyOf(token.appId, token.userId),
    tier: token.tier,
    limit: TIERS[token.tier],
    noun: 'app',
  };
  request.principal = {
    kind: token.userId === null ? 'app' : 'user',
    userId: token.userId,
    appId: token.appId,
    keyId: null,
    scopes: token.scopes,
  };
  return CONTINUE;
}

/**
 * onRequest step of the /v1 surface: `Authorization: Bearer` with an OAuth access token (user
 * context, or app context for client_credentials) or an API key (`ghk_…`, app context, public
 * read scopes only). Without a verifier (no authorization server mounted) only API keys pass.
 */
export function bearerAuthHook(keys: KeysRepo, accessTokens: AccessTokenVerifier | undefined) {
  return function authenticateBearer(request: FastifyRequest, _reply: FastifyReply): MaybePromise<boolean> {
    const token = bearerToken(request.headers.authorization);
    if (!token) throw missingToken();
    if (token.startsWith(API_KEY_PREFIX)) {
      const key = resolveApiKey(keys, token, invalidToken);
      if (isPromise(key)) return key.then((resolved) => fromApiKey(request, resolved));
      return fromApiKey(request, key);
    }
    if (!accessTokens) throw invalidToken();
    const verified = accessTokens.verify(token);
    if (isPromise(verified)) return verified.then((resolved) => fromAccessToken(request, resolved));
    return fromAccessToken(request, verified);
  };
}

/**
 * onRequest step after bearer authentication: the route's declared needs. A user-context route
 * refuses app credentials; a scope the credential lacks is `403 insufficient_scope` with the
 * RFC 6750 challenge naming the scope.
 */
export function requireScopeStep(scope: Scope | undefined, userContext: boolean) {
  return function requireScope(request: FastifyRequest, _reply: FastifyReply): boolean {
    const principal = request.principal;
    if (!principal) throw missingToken();
    if (userContext && principal.kind !== 'user') {
      throw new ProblemError(
        'user_context_required',
        'This operation acts for a signed-in hub user: call it with an OAuth access token the user granted, not an API key or an app token.',
        { headers: { 'www-authenticate': `${CHALLENGE}, error="insufficient_scope"` } },
      );
    }
    if (scope !== undefined && !principal.scopes.has(scope)) {
      throw new ProblemError(
        'insufficient_scope',
        `This operation needs the '${scope}' scope, which this credential was not granted.`,
        { headers: { 'www-authenticate': `${CHALLENGE}, error="insufficient_scope", scope="${scope}"` } },
      );
    }
    return CONTINUE;
  };
}
