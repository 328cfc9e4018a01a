import { HubApiError, HubConnectionError, HubDecodeError, apiErrorOf } from './errors.js';

/** Where the hub's authorization server answers, under the service's origin. */
export const OAUTH_PATHS = {
  authorize: '/api-platform/oauth/authorize',
  token: '/api-platform/oauth/token',
  revoke: '/api-platform/oauth/revoke',
} as const;

/** The tokens of one grant. Store the refresh token: it changes on every refresh (rotation). */
export interface OAuthTokens {
  accessToken: string;
  refreshToken?: string | undefined;
  /** when the access token expires (epoch milliseconds) */
  expiresAt?: number | undefined;
  scope?: string | undefined;
}

export interface OAuthClientOptions {
  /** the hub's origin, e.g. `https://hub.example.com` */
  baseUrl: string;
  clientId: string;
  /** confidential apps only; a public client (browser, mobile, CLI) has none */
  clientSecret?: string | undefined;
  redirectUri: string;
  fetch?: typeof fetch;
}

/** A pending authorization: keep `state` and `codeVerifier` until the user comes back. */
export interface AuthorizationRequest {
  url: string;
  state: string;
  codeVerifier: string;
}

const base64url = (bytes: Uint8Array): string => {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};
const randomToken = (bytes = 32): string => base64url(crypto.getRandomValues(new Uint8Array(bytes)));

/** The PKCE S256 challenge of a verifier (RFC 7636), with WebCrypto: browsers and Node alike. */
export async function pkceChallenge(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

interface TokenAnswer {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
}

/**
 * The Authorization Code flow with PKCE (S256) against the hub's authorization server, for
 * confidential and public clients: the URL to send the user to, the code exchange, refresh
 * (the hub rotates refresh tokens: keep the new one) and revocation.
 */
export class HubOAuth {
  private readonly fetch: typeof fetch;

  constructor(private readonly options: OAuthClientOptions) {
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  get clientId(): string {
    return this.options.clientId;
  }

  /** The authorization URL with a fresh state and PKCE pair. */
  async authorizationUrl(params: {
    scope: string | readonly string[];
    state?: string;
    extra?: Record<string, string>;
  }): Promise<AuthorizationRequest> {
    const state = params.state ?? randomToken(16);
    const codeVerifier = randomToken(32);
    const url = new URL(OAUTH_PATHS.authorize, this.options.baseUrl);
    const query = {
      response_type: 'code',
      client_id: this.options.clientId,
      redirect_uri: this.options.redirectUri,
      scope: typeof params.scope === 'string' ? params.scope : params.scope.join(' '),
      state,
      code_challenge: await pkceChallenge(codeVerifier),
      code_challenge_method: 'S256',
      ...params.extra,
    };
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    return { url: url.toString(), state, codeVerifier };
  }

  /**
   * The redirect back to the app (its full URL or query): checks the state, surfaces an
   * authorization error, and exchanges the code for tokens.
   */
  async handleCallback(
    callback: string | URL,
    pending: Pick<AuthorizationRequest, 'state' | 'codeVerifier'>,
  ) {
    const query = new URL(callback, 'http://callback.invalid').searchParams;
    if (query.get('state') !== pending.state)
      throw new OAuthError('state_mismatch', 'the state does not match');
    const error = query.get('error');
    if (error) throw new OAuthError(error, query.get('error_description') ?? '');
    const code = query.get('code');
    if (!code) throw new OAuthError('invalid_request', 'the callback carries no code');
    return this.exchangeCode(code, pending.codeVerifier);
  }

  exchangeCode(code: string, codeVerifier: string): Promise<OAuthTokens> {
    return this.token({
      grant_type: 'authorization_code',
      code,
      code_verifier: codeVerifier,
      redirect_uri: this.options.redirectUri,
    });
  }

  /** A new access token; the answer's refresh token replaces the one given (rotation). */
  refresh(refreshToken: string): Promise<OAuthTokens> {
    return this.token({ grant_type: 'refresh_token', refresh_token: refreshToken });
  }

  /** Revokes an access or refresh token (RFC 7009); revoking a refresh token ends its grant. */
  async revoke(token: string, hint?: 'access_token' | 'refresh_token'): Promise<void> {
    const res = await this.post(OAUTH_PATHS.revoke, { token, ...(hint ? { token_type_hint: hint } : {}) });
    if (!res.ok) throw await oauthErrorOf(res);
  }

  private async token(fields: Record<string, string>): Promise<OAuthTokens> {
    const res = await this.post(OAUTH_PATHS.token, fields);
    if (!res.ok) throw await oauthErrorOf(res);
    let answer: TokenAnswer;
    try {
      answer = (await res.json()) as TokenAnswer;
    } catch (error) {
      throw new HubDecodeError('the token endpoint answered no JSON', res.status, { cause: error });
    }
    return {
      accessToken: answer.access_token,
      refreshToken: answer.refresh_token,
      expiresAt: answer.expires_in === undefined ? undefined : Date.now() + answer.expires_in * 1000,
      scope: answer.scope,
    };
  }

  private async post(path: string, fields: Record<string, string>): Promise<Response> {
    const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded' });
    const body = new URLSearchParams(fields);
    if (this.options.clientSecret === undefined) body.set('client_id', this.options.clientId);
    else
      headers.set(
        'authorization',
        `Basic ${btoa(`${encodeURIComponent(this.options.clientId)}:${encodeURIComponent(this.options.clientSecret)}`)}`,
      );
    try {
      return await this.fetch(new URL(path, this.options.baseUrl), { method: 'POST', headers, body });
    } catch (error) {
      throw new HubConnectionError(`connection failed: POST ${path}`, { cause: error });
    }
  }
}

/** An OAuth error answer (RFC 6749 §5.2: `error`, `error_description`), or a state mismatch. */
export class OAuthError extends HubApiError {
  override name = 'OAuthError';
  constructor(
    readonly error: string,
    description: string,
    status = 400,
    headers: Headers = new Headers(),
  ) {
    super(status, { code: error, detail: description, title: error }, headers);
  }
}

async function oauthErrorOf(res: Response): Promise<HubApiError> {
  const copy = res.clone();
  try {
    const body = (await res.json()) as { error?: string; error_description?: string };
    if (typeof body.error === 'string')
      return new OAuthError(body.error, body.error_description ?? '', res.status, res.headers);
  } catch {
    // not an RFC 6749 answer: read it as a problem
  }
  return apiErrorOf(copy);
}
