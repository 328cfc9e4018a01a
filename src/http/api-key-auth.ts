import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashKey, isWellFormedKey, sameHash } from '../modules/keys/key-format.js';
import type { KeyForAuth, KeysRepo } from '../modules/keys/repo.js';
import { limitFor, tierForOwner } from '../modules/keys/tiers.js';
import { assertOriginAllowed } from './cors.js';
import { CONTINUE, isPromise, type MaybePromise } from './pipeline-steps.js';
import { ProblemError } from './problem.js';
import { storeKeyOf } from './quota.js';
import type { AuthenticatedKey } from './request-context.js';

export const API_KEY_HEADER = 'x-api-key';
const CHALLENGE = { 'www-authenticate': `ApiKey header="${API_KEY_HEADER}"` };

// Built only on failure: an Error captures a stack trace, which the hot path should not pay for.
const invalidKey = () =>
  new ProblemError('invalid_api_key', 'The API key is not valid or has been revoked.', {
    headers: CHALLENGE,
  });

function accepted(hash: string, key: KeyForAuth | undefined, refuse: () => ProblemError): AuthenticatedKey {
  if (!key || key.revoked_at !== null || !sameHash(key.hash, hash)) throw refuse();
  const tier =
    key.tier ??
    tierForOwner(
      key.subscription === null ? null : { subscription: key.subscription, is_partner: key.is_partner ?? 0 },
    );
  return {
    id: key.id,
    userId: key.user_id,
    tier,
    limit: limitFor(tier, key.quota),
    storeKey: storeKeyOf(key.id),
    noun: 'key',
    allowedOrigins: key.allowed_origins === null ? null : key.allowed_origins.split(' '),
  };
}

/**
 * Resolves a presented API key to the key and its tier, or throws what `refuse` makes
 * (`invalid_api_key` by default). The key row is looked up on every request (on SQLite it is remembered until
 * the database changes), so revocation and plan changes apply to the very next request. Shared by
 * the `x-api-key` step and the bearer step (an API key sent as `Authorization: Bearer ghk_…`).
 */
export function resolveApiKey(
  keys: KeysRepo,
  presented: string,
  refuse: () => ProblemError = invalidKey,
): MaybePromise<AuthenticatedKey> {
  const hash = hashKey(presented);
  // The checksum rejects typos and random strings without touching the database. It is checked
  // only when the key is not already remembered: a remembered key is a real one, well formed.
  const found = keys.findForAuth(hash, () => isWellFormedKey(presented));
  if (isPromise(found)) return found.then((key) => accepted(hash, key, refuse));
  return accepted(hash, found, refuse);
}

function remember(request: FastifyRequest, key: AuthenticatedKey): boolean {
  assertOriginAllowed(request, key.allowedOrigins);
  request.apiKey = key;
  request.quotaSubject = key;
  return CONTINUE;
}

/** onRequest step of the published API: resolves `x-api-key` to a key and its tier. */
export function apiKeyAuthHook(keys: KeysRepo) {
  return function authenticate(request: FastifyRequest, _reply: FastifyReply): MaybePromise<boolean> {
    const header = request.headers[API_KEY_HEADER];
    const presented = Array.isArray(header) ? header[0] : header;
    if (!presented) {
      throw new ProblemError('missing_api_key', `Send your API key in the ${API_KEY_HEADER} header.`, {
        headers: CHALLENGE,
      });
    }
    const key = resolveApiKey(keys, presented);
    if (isPromise(key)) return key.then((resolved) => remember(request, resolved));
    return remember(request, key);
  };
}
