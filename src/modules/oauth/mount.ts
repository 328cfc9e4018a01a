import type { FastifyReply, FastifyRequest, FastifySchema, HTTPMethods } from 'fastify';
import type Provider from 'oidc-provider';
import { Type } from 'typebox';
import type { App } from '../../http/app-types.js';
import { OAUTH_AUTHORIZE_PATH, OAUTH_PREFIX, OAUTH_TOKEN_PATH } from '../../http/paths.js';
import {
  AuthorizeQuerySchema,
  IntrospectionRequestSchema,
  OAUTH_SCHEMAS,
  PushedAuthorizationRequestSchema,
  RevocationRequestSchema,
  TokenRequestSchema,
} from './endpoint-schemas.js';

export const METADATA_PATHS = [
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
];
export const OAUTH_PATHS = {
  authorize: OAUTH_AUTHORIZE_PATH,
  token: OAUTH_TOKEN_PATH,
  revoke: `${OAUTH_PREFIX}/revoke`,
  introspect: `${OAUTH_PREFIX}/introspect`,
  par: `${OAUTH_PREFIX}/par`,
  userinfo: `${OAUTH_PREFIX}/userinfo`,
  jwks: `${OAUTH_PREFIX}/jwks`,
} as const;
/** The browser's return to the authorization endpoint once the sign-in and consent pages are done. */
export const AUTHORIZE_RESUME_PATH = `${OAUTH_AUTHORIZE_PATH}/:uid`;

const FORM = ['application/x-www-form-urlencoded'];
const TAG = 'OAuth';
const ref = (id: string, description: string) => Type.Unsafe({ $ref: `${id}#`, description });
const oauthError = (description: string) => ref('OAuthError', description);
/** How an app authenticates at the token, revocation, introspection and PAR endpoints. */
const CLIENT_AUTH: Record<string, string[]>[] = [{ oauthClient: [] }, {}];
const CLIENT_ERRORS = {
  400: oauthError('`invalid_request` and the other RFC 6749 §5.2 errors of the request'),
  401: oauthError(
    '`invalid_client`: the app\u2019s authentication failed (unknown client, or a wrong or missing secret); with `WWW-Authenticate: Basic` when it used HTTP Basic',
  ),
};
const redirect = (description: string) => ({
  type: 'null',
  description,
  headers: { Location: { type: 'string', description: 'Where the browser goes next' } },
});
const htmlPage = (description: string) => ({
  description,
  content: { 'text/html': { schema: { type: 'string' } } },
});

interface Endpoint {
  method: HTTPMethods[];
  url: string;
  schema: FastifySchema;
}

/** Every endpoint the provider serves here, as published (tag OAuth). */
function endpoints(): Endpoint[] {
  const userinfo = (method: 'GET' | 'POST'): Endpoint => ({
    method: [method],
    url: OAUTH_PATHS.userinfo,
    schema: {
      tags: [TAG],
      operationId: method === 'GET' ? 'oauth_userinfo_get' : 'oauth_userinfo_get_by_post',
      summary:
        method === 'GET' ? 'Get the signed-in user\u2019s claims' : 'Get the user\u2019s claims (POST)',
      description:
        'OpenID Connect UserInfo: the claims about the user an access token with `openid` acts for (`sub`; `preferred_username` and `picture` with `identify`). The token goes in `Authorization: Bearer`. An app\u2019s own (client_credentials) token has no user: `401 invalid_token`.',
      security: [{ oauth2: ['openid'] }],
      response: {
        200: ref('OAuthUserInfo', 'The claims'),
        401: oauthError(
          '`invalid_token` (RFC 6750 §3.1): missing, expired or revoked token, or one without a user; with `WWW-Authenticate: Bearer`',
        ),
        403: oauthError('`insufficient_scope`: the token was granted without `openid`'),
      },
    },
  });
  return [
    {
      method: ['GET'],
      url: OAUTH_PATHS.authorize,
      schema: {
        tags: [TAG],
        operationId: 'oauth_authorize',
        summary: 'Start an authorization request (browser)',
        description:
          'Where an app sends the user\u2019s browser (RFC 6749 §4.1.1). The user signs in with their hub account and is asked to allow the scopes not granted before; the browser then returns to `redirect_uri` with `code`, `state` and `iss` (or `error`, e.g. `access_denied`). PKCE with `S256` is required for every app. Not an API call: open it in a browser.' +
          ' Parameters the server does not recognise are ignored (RFC 6749 §3.1).',
        security: [],
        querystring: AuthorizeQuerySchema,
        response: {
          200: htmlPage(
            'With `response_mode=form_post`: a page whose form posts `code`, `state` and `iss` (or `error`) to the `redirect_uri`',
          ),
          303: redirect(
            'To the sign-in or consent page, or back to the app\u2019s `redirect_uri` with `code` and `state` (or `error` and `error_description` when the request is refused there)',
          ),
          400: htmlPage(
            'An HTML page for the user: the app or the redirect URI is unknown, so the browser cannot be sent back to the app',
          ),
        },
      },
    },
    {
      method: ['POST'],
      url: OAUTH_PATHS.token,
      schema: {
        tags: [TAG],
        operationId: 'oauth_token_create',
        summary: 'Get an access token',
        description:
          'The token endpoint (RFC 6749 §3.2): exchange an authorization code (with its PKCE verifier), spend a refresh token, or (confidential apps) get an app token with `client_credentials`. Access tokens live 1 hour; refresh tokens rotate on every use, and reusing a spent one revokes the whole grant.',
        security: CLIENT_AUTH,
        consumes: FORM,
        body: TokenRequestSchema,
        response: { 200: ref('OAuthTokenResponse', 'The tokens'), ...CLIENT_ERRORS },
      },
    },
    {
      method: ['POST'],
      url: OAUTH_PATHS.revoke,
      schema: {
        tags: [TAG],
        operationId: 'oauth_token_revoke',
        summary: 'Revoke a token',
        description:
          'RFC 7009: revoke one of the app\u2019s access or refresh tokens (a refresh token takes its grant\u2019s access tokens with it). An unknown, expired or another app\u2019s token answers `200` too, as the RFC says.',
        security: CLIENT_AUTH,
        consumes: FORM,
        body: RevocationRequestSchema,
        response: {
          200: { type: 'null', description: 'Revoked (or nothing to revoke); no body' },
          ...CLIENT_ERRORS,
        },
      },
    },
    {
      method: ['POST'],
      url: OAUTH_PATHS.introspect,
      schema: {
        tags: [TAG],
        operationId: 'oauth_token_introspect',
        summary: 'Describe a token',
        description:
          'RFC 7662: whether one of the app\u2019s tokens is active, with its scopes, user and expiry. For confidential apps (a back end or resource server): a public app learns nothing, every token is `{"active": false}` to it.',
        security: CLIENT_AUTH,
        consumes: FORM,
        body: IntrospectionRequestSchema,
        response: { 200: ref('OAuthIntrospection', 'What the token is'), ...CLIENT_ERRORS },
      },
    },
    {
      method: ['POST'],
      url: OAUTH_PATHS.par,
      schema: {
        tags: [TAG],
        operationId: 'oauth_par_create',
        summary: 'Push an authorization request',
        description:
          'RFC 9126: an app\u2019s back end sends the authorization request\u2019s parameters here first, then opens the authorization endpoint with just `client_id` and the returned `request_uri`, so nothing of the request travels through the browser.',
        security: CLIENT_AUTH,
        consumes: FORM,
        body: PushedAuthorizationRequestSchema,
        response: { 201: ref('OAuthPushedAuthorization', 'Kept; use `request_uri`'), ...CLIENT_ERRORS },
      },
    },
    userinfo('GET'),
    userinfo('POST'),
    {
      method: ['GET'],
      url: OAUTH_PATHS.jwks,
      schema: {
        tags: [TAG],
        operationId: 'oauth_jwks_get',
        summary: 'Get the keys that sign ID tokens',
        description: 'The public keys (ES256) that verify the ID tokens this server issues (RFC 7517).',
        security: [],
        response: {
          200: {
            description: 'The key set',
            content: { 'application/jwk-set+json': { schema: Type.Unsafe({ $ref: 'JsonWebKeySet#' }) } },
          },
        },
      },
    },
    ...METADATA_PATHS.map((url): Endpoint => ({
      method: ['GET'],
      url,
      schema: {
        tags: [TAG],
        operationId: url.endsWith('openid-configuration')
          ? 'well_known_openid_configuration_get'
          : 'well_known_oauth_authorization_server_get',
        summary: url.endsWith('openid-configuration')
          ? 'Get the OpenID Connect configuration'
          : 'Get the authorization server metadata',
        description: url.endsWith('openid-configuration')
          ? 'OpenID Connect Discovery 1.0: the same metadata, where OpenID Connect libraries look for it.'
          : 'RFC 8414: the endpoints, scopes, grant types and client authentication methods of this authorization server, where OAuth libraries look for them.',
        security: [],
        response: { 200: ref('AuthorizationServerMetadata', 'The metadata') },
      },
    })),
  ];
}

/**
 * Hands the authorization server's requests to oidc-provider (a Koa application) untouched: Fastify
 * routes exactly the endpoints published above (plus their CORS preflights and the browser's return
 * to the authorization endpoint), the provider reads the request (and its body), checks it and writes
 * the response itself, in the protocol's formats (RFC 6749/7009/7662/8414/9126), not problem+json.
 */
export async function mountProvider(app: App, provider: Provider): Promise<void> {
  const callback = provider.callback();
  await app.register(async (scope: App) => {
    for (const schema of OAUTH_SCHEMAS) scope.addSchema(schema);
    // the provider parses its own bodies: Fastify must leave the stream unread
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => {
      done(null, undefined);
    });
    const handler = (request: FastifyRequest, reply: FastifyReply): void => {
      // what every answer carries (request id, security headers) reaches the provider's response too
      for (const [name, value] of Object.entries(reply.getHeaders()))
        if (value !== undefined) reply.raw.setHeader(name, value);
      reply.hijack();
      void callback(request.raw, reply.raw);
    };
    // The schemas describe what the provider checks (and answers as RFC 6749 errors): Fastify must
    // not refuse a request first with a problem document the protocol's clients cannot read.
    const noValidation = () => () => true;
    for (const endpoint of endpoints()) {
      scope.route({
        ...endpoint,
        config: { protocolErrors: true },
        validatorCompiler: noValidation,
        handler,
      });
    }
    const hidden = { schema: { hide: true }, validatorCompiler: noValidation, handler };
    scope.route({ method: 'GET', url: AUTHORIZE_RESUME_PATH, ...hidden });
    // A CORS preflight goes to the provider (its CORS rules per client); any other OPTIONS is
    // answered here with the methods the path allows (RFC 9110 §9.3.7), not the provider's text 404.
    const allowed = new Map<string, string[]>();
    for (const { url, method } of endpoints())
      if (url !== OAUTH_AUTHORIZE_PATH) allowed.set(url, [...(allowed.get(url) ?? []), ...method]);
    for (const [url, methods] of allowed) {
      scope.route({
        method: 'OPTIONS',
        url,
        schema: { hide: true },
        validatorCompiler: noValidation,
        handler: (request, reply) => {
          const { origin, 'access-control-request-method': preflight } = request.headers;
          if (origin !== undefined && preflight !== undefined) return handler(request, reply);
          return reply
            .code(204)
            .header('allow', [...methods, 'OPTIONS'].join(', '))
            .send();
        },
      });
    }
  });
}
