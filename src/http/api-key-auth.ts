import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashKey, isWellFormedKey, sameHash } from '../modules/keys/key-format.js';
import type { KeyForAuth, KeysRepo } from '../modules/keys/repo.js';
import { limitFor, sharesAccountQuota, tierForOwner } from '../modules/keys/tiers.js';
import { CONTINUE, isPromise, type MaybePromise } from './pipeline-steps.js';
import { ProblemError } from './problem.js';
import { accountStoreKeyOf, storeKeyOf } from './quota.js';

export const API_KEY_HEADER = 'x-api-key';
const CHALLENGE = { 'www-authenticate': `ApiKey header="${API_KEY_HEADER}"` };

// Built only on failure: an Error captures a stack trace, which the hot path should not pay for.
const invalidKey = () =>
  new ProblemError('invalid_api_key', 'The API key is not valid or has been revoked.', {
    headers: CHALLENGE,
  });

function accept(request: FastifyRequest, hash: string, key: KeyForAuth | undefined): boolean {
  if (!key || key.revoked_at !== null || !sameHash(key.hash, hash)) throw invalidKey();
  const tier =
    key.tier ??
    tierForOwner(
      key.subscription === null ? null : { subscription: key.subscription, is_partner: key.is_partner ?? 0 },
    );
  const shared = sharesAccountQuota(key);
  request.apiKey = {
    id: key.id,
    userId: key.user_id,
    tier,
    limit: limitFor(tier, key.quota),
    storeKey: shared ? accountStoreKeyOf(key.user_id) : storeKeyOf(key.id),
    noun: shared ? 'account' : 'key',
  };
  return CONTINUE;
}

/**
 * onRequest step: resolves `x-api-key` to a key and its tier. The key row is looked up on every
 * request (on SQLite it is remembered until the database changes) so that revocation and plan
 * changes apply to the very next request.
 */
export function apiKeyAuthHook(keys: KeysRepo) {
  return function authenticate(request: FastifyRequest, _reply: FastifyReply): MaybePromise<boolean> {
    const header = request.headers[API_KEY_HEADER];
    const presented = Array.isArray(header) ? header[0] : header;
    if (!presented) {
      throw new ProblemError('missing_api_key', `Send your API key in the ${API_KEY_HEADER} header.`, {
        headers: CHALLENGE,
      });
    }
    const hash = hashKey(presented);
    // The checksum rejects typos and random strings without touching the database. It is checked
    // only when the key is not already remembered: a remembered key is a real one, well formed.
    const found = keys.findForAuth(hash, () => isWellFormedKey(presented));
    if (isPromise(found)) return found.then((key) => accept(request, hash, key));
    return accept(request, hash, found);
  };
}
