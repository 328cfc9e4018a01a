import type { HubOAuth, OAuthTokens } from './oauth.js';

/** OAuth tokens the client keeps fresh: refreshed before they expire and after a 401. */
export interface OAuthCredentials {
  tokens: OAuthTokens;
  /** the app's OAuth client, which refreshes */
  client: HubOAuth;
  /** called with every new token set: store its refresh token, the old one is spent (rotation) */
  onTokens?: (tokens: OAuthTokens) => void | Promise<void>;
}

export interface Credentials {
  /** an API key (`ghk_…`): `x-api-key` on the published API, a bearer token on `/v1` */
  apiKey?: string | undefined;
  /** an OAuth access token acting for a user on `/v1`, refreshed when its refresh token is given */
  oauth?: OAuthCredentials | undefined;
}

/** Refresh this long before the expiry the token endpoint announced, so no call carries a dying token. */
const EARLY_REFRESH_MS = 30_000;

/** Puts the right credential on each request, by the surface its path belongs to. */
export class CredentialStore {
  private refreshing: Promise<void> | undefined;

  constructor(private readonly credentials: Credentials) {}

  /** The current OAuth tokens (after any refresh), if the client acts for a user. */
  get tokens(): OAuthTokens | undefined {
    return this.credentials.oauth?.tokens;
  }

  async authorize(request: Request): Promise<void> {
    const path = new URL(request.url).pathname;
    if (path.startsWith('/api-platform/oauth/')) return;
    if (path.startsWith('/v1/')) {
      if (request.headers.has('authorization')) return;
      const bearer = await this.bearer();
      if (bearer) request.headers.set('authorization', `Bearer ${bearer}`);
      return;
    }
    if (this.credentials.apiKey && !request.headers.has('x-api-key'))
      request.headers.set('x-api-key', this.credentials.apiKey);
  }

  /** After a 401 on `/v1` with an OAuth token: one refresh, then the request is worth sending again. */
  async refreshAfter401(request: Request): Promise<boolean> {
    const oauth = this.credentials.oauth;
    if (!oauth?.tokens.refreshToken || !new URL(request.url).pathname.startsWith('/v1/')) return false;
    await this.refresh();
    return true;
  }

  private async bearer(): Promise<string | undefined> {
    const oauth = this.credentials.oauth;
    if (!oauth) return this.credentials.apiKey;
    const { expiresAt, refreshToken } = oauth.tokens;
    if (refreshToken && expiresAt !== undefined && expiresAt - Date.now() < EARLY_REFRESH_MS)
      await this.refresh();
    return oauth.tokens.accessToken;
  }

  /** One refresh at a time: concurrent calls wait for the same one (a rotated token is spent once). */
  private refresh(): Promise<void> {
    this.refreshing ??= this.doRefresh().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async doRefresh(): Promise<void> {
    const oauth = this.credentials.oauth;
    const refreshToken = oauth?.tokens.refreshToken;
    if (!oauth || !refreshToken) return;
    const fresh = await oauth.client.refresh(refreshToken);
    oauth.tokens = { ...fresh, refreshToken: fresh.refreshToken ?? refreshToken };
    await oauth.onTokens?.(oauth.tokens);
  }
}
