import { Type } from 'typebox';
import { SCOPE_NAMES } from '../../http/scopes.js';
import { StringEnum } from '../../http/schemas.js';

/**
 * What the authorization server's endpoints take and answer, as published in the OpenAPI document.
 * oidc-provider reads and checks these requests itself and answers in the protocol's own formats
 * (RFC 6749 error JSON, not problem+json), so these schemas describe it; they do not validate.
 * Every form here follows RFC 6749 §3.1/§3.2: parameters the server does not know are ignored
 * (RFC 7009, 7662 and 9126 reuse that rule), which is why no form forbids other properties.
 */

const IGNORED =
  ' Parameters the server does not recognise are ignored, as RFC 6749 (§3.1, §3.2) requires of an authorization server; a parameter sent twice is `invalid_request`.';

const scopeText = (what: string) =>
  Type.String({
    description: `${what}: scope names separated by spaces, from ${SCOPE_NAMES.map((s) => `\`${s}\``).join(', ')}.`,
    examples: ['identify stats:read'],
  });

const clientId = Type.String({
  description:
    'The app\u2019s client id. Required from a public app (no secret) and with `client_secret_post`; optional with HTTP Basic.',
  examples: ['app_2f96bb0640072a3502df6214d038b9df'],
});
const clientSecret = Type.String({
  description:
    'A confidential app\u2019s secret when it authenticates with `client_secret_post`; otherwise send it with HTTP Basic (`client_secret_basic`).',
});

/** RFC 6749 §5.2 (and RFC 6750 §3.1 on the userinfo endpoint): the protocol's own error answer. */
export const OAuthErrorSchema = Type.Object(
  {
    error: Type.String({
      description:
        'The error code: `invalid_request`, `invalid_client`, `invalid_grant`, `unauthorized_client`, `unsupported_grant_type`, `invalid_scope` (RFC 6749 §5.2), `unsupported_token_type` (RFC 7009), `invalid_token`, `insufficient_scope` (RFC 6750), `server_error`.',
      examples: ['invalid_grant'],
    }),
    error_description: Type.Optional(
      Type.String({
        description: 'What went wrong, for the developer (not for end users).',
        examples: ['grant request is invalid'],
      }),
    ),
  },
  {
    $id: 'OAuthError',
    description:
      'An OAuth 2.0 error (RFC 6749 §5.2), as every OAuth client library reads it. The authorization server\u2019s endpoints answer this instead of a problem document.',
  },
);

export const TokenRequestSchema = Type.Object(
  {
    grant_type: StringEnum(['authorization_code', 'refresh_token', 'client_credentials'], {
      description:
        '`authorization_code` (with `code`, `redirect_uri`, `code_verifier`), `refresh_token` (with `refresh_token`), or `client_credentials` (confidential apps only: a token for the app itself, no user).',
      examples: ['authorization_code'],
    }),
    code: Type.Optional(
      Type.String({ description: 'The authorization code the redirect brought back (valid 60 s, once).' }),
    ),
    redirect_uri: Type.Optional(
      Type.String({
        description: 'The redirect URI the authorization request named, exactly.',
        examples: ['https://fragtracker.example/callback'],
      }),
    ),
    code_verifier: Type.Optional(
      Type.String({
        minLength: 43,
        maxLength: 128,
        description: 'The PKCE verifier whose S256 challenge the authorization request sent (RFC 7636).',
      }),
    ),
    refresh_token: Type.Optional(
      Type.String({
        description: 'A refresh token; it is spent by this request and a new one is returned (rotation).',
      }),
    ),
    scope: Type.Optional(
      scopeText('`refresh_token`: fewer scopes than granted; `client_credentials`: the scopes wanted'),
    ),
    client_id: Type.Optional(clientId),
    client_secret: Type.Optional(clientSecret),
  },
  { description: `A token request (RFC 6749 §4.1.3, §4.4.2, §6).${IGNORED}` },
);

export const TokenResponseSchema = Type.Object(
  {
    access_token: Type.String({
      description: 'The access token: send it as `Authorization: Bearer`.',
      examples: ['Ea5IWLMKpVwkdGc5g_ga3PUHuezDAqiCLCSgCJ8ppab'],
    }),
    token_type: Type.String({
      description: '`Bearer` (`DPoP` when the request carried a DPoP proof).',
      examples: ['Bearer'],
    }),
    expires_in: Type.Integer({
      minimum: 1,
      description: 'Seconds the access token lives.',
      examples: [3600],
    }),
    scope: Type.Optional(scopeText('The scopes granted')),
    refresh_token: Type.Optional(
      Type.String({
        description:
          'With `offline_access`: a refresh token. Each is used once; using a spent one revokes the grant.',
        examples: ['p0RyD5cVtq7n2MZ1vHc6sQe9Xx3LbWu8kJf4GhTa0Nw'],
      }),
    ),
    id_token: Type.Optional(
      Type.String({
        description: 'With `openid`: an ID token (JWT, ES256).',
        examples: ['eyJhbGciOiJFUzI1NiJ9.e30.c2ln'],
      }),
    ),
  },
  { $id: 'OAuthTokenResponse', description: 'A successful token answer (RFC 6749 §5.1).' },
);

const tokenTypeHint = Type.Optional(
  StringEnum(['access_token', 'refresh_token'], {
    description: 'What kind of token `token` is, to speed up the lookup; a wrong hint is not an error.',
  }),
);

export const RevocationRequestSchema = Type.Object(
  {
    token: Type.String({ description: 'The access or refresh token to revoke (one of the app\u2019s own).' }),
    token_type_hint: tokenTypeHint,
    client_id: Type.Optional(clientId),
    client_secret: Type.Optional(clientSecret),
  },
  { description: `A revocation request (RFC 7009 §2.1).${IGNORED}` },
);

export const IntrospectionRequestSchema = Type.Object(
  {
    token: Type.String({ description: 'The token to describe (one of the app\u2019s own).' }),
    token_type_hint: tokenTypeHint,
    client_id: Type.Optional(clientId),
    client_secret: Type.Optional(clientSecret),
  },
  { description: `An introspection request (RFC 7662 §2.1).${IGNORED}` },
);

export const IntrospectionResponseSchema = Type.Object(
  {
    active: Type.Boolean({
      description:
        '`false` for a token that is unknown, expired, revoked or another app\u2019s; nothing else is said then.',
      examples: [true],
    }),
    scope: Type.Optional(scopeText('The token\u2019s scopes')),
    client_id: Type.Optional(Type.String({ description: 'The app the token was issued to.' })),
    sub: Type.Optional(
      Type.String({
        description: 'The hub user id the token acts for (absent for an app\u2019s own token).',
      }),
    ),
    token_type: Type.Optional(Type.String({ examples: ['Bearer'] })),
    exp: Type.Optional(Type.Integer({ description: 'Expiry, epoch seconds.' })),
    iat: Type.Optional(Type.Integer({ description: 'Issue time, epoch seconds.' })),
    iss: Type.Optional(Type.String({ description: 'The issuer: this service\u2019s origin.' })),
  },
  {
    $id: 'OAuthIntrospection',
    additionalProperties: true,
    description: 'What the token is (RFC 7662 §2.2); members besides `active` only for an active token.',
  },
);

export const PushedAuthorizationRequestSchema = Type.Object(
  {
    client_id: clientId,
    response_type: Type.Literal('code', { description: 'Always `code`.' }),
    redirect_uri: Type.String({
      description: 'One of the app\u2019s registered redirect URIs, exactly.',
      examples: ['https://fragtracker.example/callback'],
    }),
    scope: Type.Optional(scopeText('The scopes asked for')),
    state: Type.Optional(Type.String({ description: 'Opaque value returned unchanged with the code.' })),
    code_challenge: Type.String({
      minLength: 43,
      maxLength: 128,
      description: 'PKCE (RFC 7636): base64url(SHA-256(code_verifier)). Required for every app.',
    }),
    code_challenge_method: Type.Literal('S256', { description: 'Only `S256`; `plain` is refused.' }),
    client_secret: Type.Optional(clientSecret),
  },
  {
    description: `The parameters of an authorization request, pushed from the app\u2019s back end (RFC 9126 §2.1).${IGNORED}`,
  },
);

export const PushedAuthorizationResponseSchema = Type.Object(
  {
    request_uri: Type.String({
      description: 'Send it as `request_uri` (with `client_id`) to the authorization endpoint.',
      examples: ['urn:ietf:params:oauth:request_uri:dXO0J4ZcMg2aHqT5m4DzR'],
    }),
    expires_in: Type.Integer({
      minimum: 1,
      description: 'Seconds the request_uri stays usable.',
      examples: [60],
    }),
  },
  { $id: 'OAuthPushedAuthorization', description: 'Where the pushed request is kept (RFC 9126 §2.2).' },
);

export const UserInfoSchema = Type.Object(
  {
    sub: Type.String({ description: 'The hub user id.', examples: ['42'] }),
    preferred_username: Type.Optional(
      Type.String({ description: 'With `identify`.', examples: ['NovaStrike'] }),
    ),
    picture: Type.Optional(
      Type.String({ description: 'With `identify`: the avatar\u2019s path.', examples: ['/avatars/42.png'] }),
    ),
  },
  {
    $id: 'OAuthUserInfo',
    additionalProperties: true,
    description: 'The claims about the user the token acts for (OpenID Connect Core §5.3.2).',
  },
);

export const JwkSetSchema = Type.Object(
  {
    keys: Type.Array(
      Type.Object(
        {
          kty: Type.String({ examples: ['EC'] }),
          kid: Type.String(),
          alg: Type.Optional(Type.String({ examples: ['ES256'] })),
          use: Type.Optional(Type.String({ examples: ['sig'] })),
        },
        { additionalProperties: true, description: 'A public key (RFC 7517 §4).' },
      ),
    ),
  },
  { $id: 'JsonWebKeySet', description: 'The public keys that verify ID tokens (RFC 7517 §5).' },
);

export const ServerMetadataSchema = Type.Object(
  {
    issuer: Type.String({ description: 'This service\u2019s origin.', examples: ['https://hub.example'] }),
    authorization_endpoint: Type.String({ examples: ['https://hub.example/api-platform/oauth/authorize'] }),
    token_endpoint: Type.String({ examples: ['https://hub.example/api-platform/oauth/token'] }),
    jwks_uri: Type.String(),
    revocation_endpoint: Type.Optional(Type.String()),
    introspection_endpoint: Type.Optional(Type.String()),
    userinfo_endpoint: Type.Optional(Type.String()),
    pushed_authorization_request_endpoint: Type.Optional(Type.String()),
    scopes_supported: Type.Array(Type.String()),
    response_types_supported: Type.Array(Type.String(), { examples: [['code']] }),
    grant_types_supported: Type.Array(Type.String()),
    code_challenge_methods_supported: Type.Array(Type.String(), { examples: [['S256']] }),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
  },
  {
    $id: 'AuthorizationServerMetadata',
    additionalProperties: true,
    description:
      'Where the endpoints are and what they support (RFC 8414 §2; OpenID Connect Discovery 1.0 §3): what OAuth libraries read to configure themselves.',
  },
);

/**
 * Request bodies are written inline in the document, like every other operation's; the answers are
 * named components.
 *
 * The query of an authorization request (RFC 6749 §4.1.1 with PKCE, RFC 7636 §4.3). */
export const AuthorizeQuerySchema = Type.Object({
  client_id: clientId,
  response_type: Type.Optional(Type.Literal('code', { description: 'Always `code`.' })),
  redirect_uri: Type.Optional(
    Type.String({
      description:
        'One of the app\u2019s registered redirect URIs, exactly (required when it registered several).',
    }),
  ),
  scope: Type.Optional(scopeText('The scopes asked for')),
  state: Type.Optional(Type.String({ description: 'Opaque value returned unchanged to the redirect URI.' })),
  code_challenge: Type.Optional(
    Type.String({ description: 'PKCE: base64url(SHA-256(code_verifier)). Required for every app.' }),
  ),
  code_challenge_method: Type.Optional(Type.Literal('S256', { description: 'Only `S256`.' })),
  request_uri: Type.Optional(
    Type.String({
      description: 'Instead of the parameters above: the `request_uri` a pushed request returned.',
    }),
  ),
  response_mode: Type.Optional(
    StringEnum(['query', 'form_post'], {
      description:
        '`query` (the default): the browser returns to `redirect_uri` with the answer in its query; `form_post`: the answer is posted to it by a page the browser loads.',
    }),
  ),
  prompt: Type.Optional(
    Type.String({ description: '`consent` asks the user again even for scopes already granted.' }),
  ),
});

export const OAUTH_SCHEMAS = [
  OAuthErrorSchema,
  TokenResponseSchema,
  IntrospectionResponseSchema,
  PushedAuthorizationResponseSchema,
  UserInfoSchema,
  JwkSetSchema,
  ServerMetadataSchema,
];
