import type { Tier } from '../modules/keys/tiers.js';
import type { MaybePromise } from './pipeline-steps.js';
import type { Scope } from './scopes.js';

/**
 * What an OAuth access token stands for, as the bearer step of the pipeline needs it. The
 * authorization server (modules/oauth) implements the verifier; http/ only knows this interface.
 */
export interface VerifiedAccessToken {
  /** the hub user the token acts for; null for a client_credentials token (app context) */
  userId: number | null;
  /** the registered app (its numeric id) and its OAuth client_id */
  appId: number;
  clientId: string;
  scopes: ReadonlySet<Scope>;
  /** the plan of the app's owner: its hourly quota is spent per (app, user) pair */
  tier: Tier;
  /** epoch ms */
  expiresAt: number;
}

export interface AccessTokenVerifier {
  /**
   * Resolves an access token; undefined when it is unknown, expired or revoked. A hit must not
   * cost a database round trip per request, and a revocation must apply to the very next request.
   */
  verify(token: string): MaybePromise<VerifiedAccessToken | undefined>;
}
