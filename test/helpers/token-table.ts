import type { AccessTokenVerifier, VerifiedAccessToken } from '../../src/http/access-tokens.js';
import type { Scope } from '../../src/http/scopes.js';

/**
 * Stands in for the authorization server in tests of the pipeline's own rules (bearer, scopes,
 * idempotency): a table of access tokens. Tests of real OAuth flows use real tokens instead.
 */
export class TokenTable implements AccessTokenVerifier {
  readonly tokens = new Map<string, VerifiedAccessToken>();
  verify(token: string): VerifiedAccessToken | undefined {
    const found = this.tokens.get(token);
    return found && found.expiresAt > Date.now() ? found : undefined;
  }
}

export const userToken = (
  scopes: Scope[],
  overrides: Partial<VerifiedAccessToken> = {},
): VerifiedAccessToken => ({
  userId: 7,
  appId: 3,
  clientId: 'client-3',
  scopes: new Set(scopes),
  tier: 'free',
  expiresAt: Date.now() + 3_600_000,
  ...overrides,
});
