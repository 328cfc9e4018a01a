import { createHash } from 'node:crypto';
import type { AccessTokenVerifier, VerifiedAccessToken } from '../../http/access-tokens.js';
import type { Broadcast } from '../../http/broadcast.js';
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

/** What one instance tells the others; a token travels as its digest, never as itself. */
type Revocation = { token: string } | { grant: string } | { client: string };

const REVOCATIONS = 'oauth.revocations';

/** Tells every running instance that an app was deleted (from a process without a verifier: the CLI). */
export function announceClientDeleted(broadcast: Broadcast, clientId: string): void {
  broadcast.publish(REVOCATIONS, JSON.stringify({ client: clientId } satisfies Revocation));
}

const digestOf = (token: string): string => createHash('sha256').update(token).digest('base64url');

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
 * deletion), which tells this cache at once (`RevocationListener`), and every other instance hears
 * it through the broadcast (Redis pub/sub with REDIS_URL). A broadcast lost while Redis is away
 * is covered by `TOKEN_CACHE_MS`, which bounds how long an entry lives regardless.
 */
export class CachedAccessTokens implements AccessTokenVerifier, RevocationListener {
  private readonly entries = new Map<string, Entry>();
  /** digest -> token, so a revocation heard from another instance finds its entry */
  private readonly byDigest = new Map<string, string>();
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly store: OAuthStoreRepo,
    private readonly apps: AppsRepo,
    private readonly now: () => number,
    private readonly onError: (err: unknown) => void,
    private readonly broadcast?: Broadcast,
  ) {
    broadcast?.subscribe(REVOCATIONS, (message) => {
      this.heard(message);
    });
  }

  verify(token: string): VerifiedAccessToken | undefined | Promise<VerifiedAccessToken | undefined> {
    if (token.length > 128) return undefined;
    const at = this.now();
    const hit = this.entries.get(token);
    if (hit && hit.checkAfter > at && hit.token.expiresAt > at) {
      this.touch(hit.grantId, at);
      return hit.token;
    }
    if (hit) this.drop(token);
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
    if (this.entries.size >= MAX_ENTRIES) {
      this.entries.clear();
      this.byDigest.clear();
    }
    this.entries.set(token, { token: verified, grantId, checkAfter: at + TOKEN_CACHE_MS });
    this.byDigest.set(digestOf(token), token);
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
    this.drop(id);
    this.tell({ token: digestOf(id) });
  }

  grantRevoked(grantId: string): void {
    this.forget((entry) => entry.grantId === grantId);
    this.tell({ grant: grantId });
  }

  /** The app was deleted: none of its tokens may pass again. */
  clientDeleted(clientId: string): void {
    this.forget((entry) => entry.token.clientId === clientId);
    if (this.broadcast) announceClientDeleted(this.broadcast, clientId);
  }

  private tell(revocation: Revocation): void {
    this.broadcast?.publish(REVOCATIONS, JSON.stringify(revocation));
  }

  /** Another instance (or this one, echoed back) revoked something: forget it here too. */
  private heard(message: string): void {
    let revocation: Partial<Record<'token' | 'grant' | 'client', unknown>>;
    try {
      revocation = JSON.parse(message) as typeof revocation;
    } catch {
      return;
    }
    const { token, grant, client } = revocation;
    if (typeof token === 'string') {
      const found = this.byDigest.get(token);
      if (found !== undefined) this.drop(found);
    } else if (typeof grant === 'string') {
      this.forget((entry) => entry.grantId === grant);
    } else if (typeof client === 'string') {
      this.forget((entry) => entry.token.clientId === client);
    }
  }

  private drop(token: string): void {
    this.entries.delete(token);
    this.byDigest.delete(digestOf(token));
  }

  private forget(match: (entry: Entry) => boolean): void {
    for (const [token, entry] of this.entries) if (match(entry)) this.drop(token);
  }
}
