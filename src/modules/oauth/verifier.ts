import type { AccessTokenVerifier, VerifiedAccessToken } from '../../http/access-tokens.js';
import { API_KEY_SCOPES, isScope, type Scope } from '../../http/scopes.js';
import { tierForOwner } from '../keys/tiers.js';
import type { AppsRepo } from '../apps/repo.js';
import type { RevocationListener } from './adapter.js';
import type { OAuthStoreRepo } from './store-repo.js';

interface Entry {
  token: VerifiedAccessToken;
  grantId: string | null;
  /** re-read from the database after this (epoch ms), whatever happens */
  checkAfter: number;
}

interface TokenPayload {
  accountId?: string;
  clientId?: string;
  grantId?: string;
  scope?: string;
  exp?: number;
}

/** How long a verified token is trusted from memory before it is read again (a backstop only). */
export const TOKEN_CACHE_MS = 30_000;
/** A grant's "last used" is written at most this often, however busy its tokens are. */
const TOUCH_EVERY_MS = 60_000;
const MAX_ENTRIES = 50_000;

/**
 * The /v1 pipeline's access-token check. A token is read from the database once, then answered from
 * memory with no I/O. Revocation still applies to the very next request: every way a token dies
 * goes through the store adapter (refresh-token reuse, RFC 7009 revocation, "revoke app", app
 * deletion), which tells this cache at once (`RevocationListener`), and other instances hear it
 * through `remote` (Redis pub/sub). `TOKEN_CACHE_MS` bounds how long an entry lives regardless.
 */
export class CachedAccessTokens implements AccessTokenVerifier, RevocationListener {
  private readonly entries = new Map<string, Entry>();
  private readonly touched = new Map<string, number>();
  /** other instances' caches, told of every revocation made here */
  remote: RevocationListener | undefined;

  constructor(
    private readonly store: OAuthStoreRepo,
    private readonly apps: AppsRepo,
    private readonly now: () => number,
    private readonly onError: (err: unknown) => void,
  ) {}

  verify(token: string): VerifiedAccessToken | undefined | Promise<VerifiedAccessToken | undefined> {
    if (token.length > 128) return undefined;
    const at = this.now();
    const hit = this.entries.get(token);
    if (hit && hit.checkAfter > at && hit.token.expiresAt > at) {
      this.touch(hit.grantId, at);
      return hit.token;
    }
    if (hit) this.entries.delete(token);
    return this.load(token, at);
  }

  private async load(token: string, at: number): Promise<VerifiedAccessToken | undefined> {
    const row = await this.store.findToken(token, at);
    if (!row) return undefined;
    const payload = JSON.parse(row.payload) as TokenPayload;
    if (!payload.clientId || !payload.exp) return undefined;
    const expiresAt = payload.exp * 1000;
    if (expiresAt <= at) return undefined;
    const app = await this.apps.findByClientId(payload.clientId);
    if (!app) return undefined;
    const userContext = row.model === 'AccessToken' && payload.accountId !== undefined;
    const granted = (payload.scope ?? '').split(' ').filter(isScope);
    // an app's own token (client_credentials) reads public data only, as an API key does
    const scopes = new Set<Scope>(userContext ? granted : granted.filter((s) => API_KEY_SCOPES.has(s)));
    const verified: VerifiedAccessToken = {
      userId: userContext ? Number(payload.accountId) : null,
      appId: app.id,
      clientId: app.client_id,
      scopes,
      tier: tierForOwner({ subscription: app.owner_subscription, is_partner: app.owner_is_partner }),
      expiresAt,
    };
    const grantId = payload.grantId ?? null;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(token, { token: verified, grantId, checkAfter: at + TOKEN_CACHE_MS });
    this.touch(grantId, at);
    return verified;
  }

  private touch(grantId: string | null, at: number): void {
    if (grantId === null) return;
    const last = this.touched.get(grantId);
    if (last !== undefined && at - last < TOUCH_EVERY_MS) return;
    if (this.touched.size >= MAX_ENTRIES) this.touched.clear();
    this.touched.set(grantId, at);
    this.store.touchGrant(grantId, at).catch(this.onError);
  }

  tokenDestroyed(id: string): void {
    this.entries.delete(id);
    this.remote?.tokenDestroyed(id);
  }

  grantRevoked(grantId: string): void {
    this.forget((entry) => entry.grantId === grantId);
    this.remote?.grantRevoked(grantId);
  }

  /** The app was deleted: none of its tokens may pass again. */
  clientDeleted(clientId: string): void {
    this.forget((entry) => entry.token.clientId === clientId);
  }

  private forget(match: (entry: Entry) => boolean): void {
    for (const [token, entry] of this.entries) if (match(entry)) this.entries.delete(token);
  }
}
