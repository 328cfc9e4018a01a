import swagger from '@fastify/swagger';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { API_KEY_HEADER } from './api-key-auth.js';
import { API_DESCRIPTION, TAGS } from './docs/description.js';
import type { OpenApiDocument } from './docs/openapi-types.js';
import { completeDocument, MARK, type ProblemCodesByStatus } from './docs/operations.js';
import { registerGuides } from './docs/guides.js';
import { registerPages } from './docs/pages.js';
import { registerReference } from './docs/reference.js';
import type { ErrorCode } from './problem.js';
import { REVALIDATE, sendAsset, staticAsset, type StaticAsset } from './static-asset.js';

import { SCOPES } from './scopes.js';
import {
  API_PREFIX,
  DOCS_PATH,
  OAUTH_AUTHORIZE_PATH,
  OAUTH_PREFIX,
  OAUTH_TOKEN_PATH,
  OPENAPI_PATH,
  OPS_PATHS,
  V1_PREFIX,
} from './paths.js';

/** The error codes each documented status carries, as `errorResponses` lists them. */
function problemCodes(response: unknown): ProblemCodesByStatus {
  const out: ProblemCodesByStatus = {};
  if (typeof response !== 'object' || response === null) return out;
  for (const [status, schema] of Object.entries(
    response as Record<string, { 'x-problem-codes'?: unknown }>,
  )) {
    const codes = schema['x-problem-codes'];
    if (Array.isArray(codes)) out[status] = codes as ErrorCode[];
  }
  return out;
}

/**
 * The example a status's answer declares on a named (`$ref`) schema, which the generator drops
 * with the reference's other keywords: a `202` that shares the `200`'s named body shows its own.
 */
function refExamples(response: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof response !== 'object' || response === null) return out;
  for (const [status, schema] of Object.entries(
    response as Record<string, { $ref?: unknown; examples?: unknown }>,
  )) {
    if (typeof schema.$ref === 'string' && Array.isArray(schema.examples) && schema.examples.length > 0)
      out[status] = schema.examples[0];
  }
  return out;
}

/** Prefixes documented besides the published API's; every path is written in full. */
const OTHER_DOCUMENTED_PREFIXES = [
  '/api-platform/developer/',
  '/api-platform/ingest/',
  `${V1_PREFIX}/`,
  `${OAUTH_PREFIX}/`,
  '/.well-known/',
];
const OPS_ROUTES: readonly string[] = Object.values(OPS_PATHS);

/**
 * Per route: what the route declares in `config` (auth, cache) and in its error responses, handed
 * to `completeDocument` as operation extensions. Paths stay in full under the document's one
 * server (`/`): generators ignore per-operation servers (DESIGN.md, "Client libraries").
 * Other routes (docs, pages, assets) are not part of this document.
 */
function transformRoute({ schema, url, route }: { schema: FastifySchema; url: string; route: RouteOptions }) {
  const inApi = url.startsWith(`${API_PREFIX}/`);
  const elsewhere =
    (OTHER_DOCUMENTED_PREFIXES.some((prefix) => url.startsWith(prefix)) || OPS_ROUTES.includes(url)) &&
    schema.tags !== undefined;
  if (!inApi && !elsewhere) return { schema: { ...schema, hide: true }, url };
  const marks = {
    [MARK.auth]: route.config?.auth,
    [MARK.cache]: route.config?.cache === true,
    [MARK.idempotency]: route.config?.idempotency,
    [MARK.protocolErrors]: route.config?.protocolErrors === true,
    [MARK.problems]: problemCodes(schema.response),
    [MARK.examples]: refExamples(schema.response),
  };
  return { schema: { ...schema, ...marks } as FastifySchema, url };
}

/** What the features add to the document beyond their routes. */
export interface DocsExtras {
  /** the OpenAPI 3.1 `webhooks` section: the requests the API sends (the event catalog) */
  webhooks?: OpenApiDocument['webhooks'];
}

/** OpenAPI 3.1 generated from the route schemas, and the interactive reference served offline. */
export async function registerDocs(app: FastifyInstance, extras: DocsExtras = {}): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Gaming Hub API',
        version: '1.0.0',
        description: API_DESCRIPTION,
        license: { name: 'MIT', identifier: 'MIT' },
        // Whoever runs this hub answers for it. No URL: OpenAPI wants an absolute one, and the
        // document does not know the host it is served from.
        contact: { name: 'The operator of this hub' },
      },
      servers: [{ url: '/', description: 'This service (the origin that serves this document)' }],
      security: [{ apiKey: [] }],
      tags: TAGS,
      components: {
        securitySchemes: {
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: API_KEY_HEADER,
            description:
              'Your API key (`ghk_` followed by 38 letters and digits), from the developer portal.',
          },
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description:
              'The preview `/v1` surface: an OAuth 2.0 access token acting for a hub user, or an API key (`ghk_…`) sent as a bearer token for public data.',
          },
          oauth2: {
            type: 'oauth2',
            description:
              'OAuth 2.0 for apps registered in the developer portal: the authorization code flow with PKCE (S256, required for every client) acting for a hub user, or client credentials (confidential apps, app context). Each `/v1` operation names the scope it needs.',
            flows: {
              authorizationCode: {
                authorizationUrl: OAUTH_AUTHORIZE_PATH,
                tokenUrl: OAUTH_TOKEN_PATH,
                refreshUrl: OAUTH_TOKEN_PATH,
                scopes: SCOPES,
              },
              clientCredentials: { tokenUrl: OAUTH_TOKEN_PATH, scopes: SCOPES },
            },
          },
          oauthClient: {
            type: 'http',
            scheme: 'basic',
            description:
              'An app authenticating at the OAuth endpoints (`client_secret_basic`): its client id and secret as HTTP Basic credentials. A confidential app may send `client_id` and `client_secret` in the form instead (`client_secret_post`); a public app sends only `client_id` in the form.',
          },
          ingestToken: {
            type: 'http',
            scheme: 'bearer',
            description:
              'A game server\u2019s ingest token (from `hub servers add`). Senders that cannot set headers put it in the path instead.',
          },
          metricsToken: {
            type: 'http',
            scheme: 'bearer',
            description:
              'The token the operator set in `METRICS_TOKEN`; without that setting `/metrics` needs no credential.',
          },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: 'hub_session',
            description:
              'Developer portal session (`__Host-hub_session` over HTTPS). Writes also need the `x-csrf-token` header.',
          },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
    // OpenAPI 3.1 has `const`; keeping it lets the docs describe a literal union the way the
    // validator (and its 400 messages) does.
    convertConstToEnum: false,
    transform: transformRoute,
    transformObject: (input) =>
      'openapiObject' in input
        ? completeDocument({
            ...(input.openapiObject as unknown as OpenApiDocument),
            ...(extras.webhooks ? { webhooks: extras.webhooks } : {}),
          })
        : input.swaggerObject,
  });
}

/**
 * The OpenAPI document (built once, when first asked for: every route is registered by then) and
 * the interactive reference. The document's URL is stable, so it is revalidated by its ETag.
 */
export async function registerDocsRoutes(app: FastifyInstance): Promise<void> {
  let document: StaticAsset | undefined;
  app.get(OPENAPI_PATH, { schema: { hide: true } }, (request, reply) => {
    document ??= staticAsset(JSON.stringify(app.swagger()), 'application/json; charset=utf-8');
    return sendAsset(request, reply, document, REVALIDATE);
  });
  await registerReference(app, DOCS_PATH, OPENAPI_PATH);
  registerPages(app, DOCS_PATH);
  registerGuides(app);
}
