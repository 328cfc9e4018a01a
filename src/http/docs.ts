import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';
import { TIER_DESCRIPTIONS, TIERS, TIER_NAMES } from '../modules/keys/tiers.js';
import { API_KEY_HEADER } from './api-key-auth.js';

export const API_PREFIX = '/api-platform/v1';
export const DOCS_PATH = '/api-platform/docs';
export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;

const tierTable = [
  '| Tier | Requests per hour | Who |',
  '|---|---|---|',
  ...TIER_NAMES.map((t) => `| ${t} | ${TIERS[t].toLocaleString('en-US')} | ${TIER_DESCRIPTIONS[t]} |`),
].join('\n');

const description = `Public, read-only data of the gaming hub: profiles, XP, tournaments, game servers, forum,
achievements, a cross-game killboard and a Counter-Strike ELO ladder.

## Authentication
Every operation needs an API key in the \`${API_KEY_HEADER}\` header. Get one in the
[developer portal](/api-platform/developer): sign up, create a key (shown once), watch its usage, revoke it. A missing, unknown or revoked key gets
\`401\` with \`WWW-Authenticate: ApiKey header="${API_KEY_HEADER}"\`.

## Rate limits
Quotas are per key, in fixed one-hour windows aligned to the UTC hour:

${tierTable}

Every response reports the quota: \`x-ratelimit-limit\`, \`x-ratelimit-remaining\`, \`x-ratelimit-used\`,
\`x-ratelimit-reset\` (epoch seconds), and the IETF draft headers \`RateLimit-Policy\` and \`RateLimit\`.
Over quota, requests get \`429\` with \`Retry-After\` (seconds).

## Caching
Responses carry an \`ETag\`. Send it back in \`If-None-Match\`: an unchanged resource answers \`304 Not Modified\`
and does not count against the quota. Data may be up to half a second old.

## Errors
Every error is an RFC 9457 \`application/problem+json\` document with \`type\`, \`title\`, \`status\`, \`detail\`,
\`instance\` (the request id) and a machine-readable \`code\`. Invalid parameters are listed in \`errors\`; out-of-range
values are rejected with \`400\`, never clamped.
`;

/** OpenAPI 3.1 generated from the route schemas, and the interactive reference served offline. */
export async function registerDocs(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Gaming Hub API', version: '1.0.0', description },
      servers: [{ url: API_PREFIX }],
      tags: [
        {
          name: 'Developer portal',
          description:
            'Session-authenticated routes under `/api-platform/developer` (not the API base): hub accounts, self-service keys and usage. The web pages live at `/api-platform/developer`.',
        },
      ],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: API_KEY_HEADER, description: 'Your API key (ghk_…)' },
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
    transform: ({ schema, url }) => ({
      schema,
      url: url.startsWith(API_PREFIX) ? url.slice(API_PREFIX.length) : url,
    }),
  });
}

export async function registerDocsRoutes(app: FastifyInstance): Promise<void> {
  app.get(OPENAPI_PATH, { schema: { hide: true }, config: { cache: true } }, () => app.swagger());
  await app.register(scalar, {
    routePrefix: DOCS_PATH,
    configuration: { url: OPENAPI_PATH, withDefaultFonts: false, title: 'Gaming Hub API reference' },
    logLevel: 'warn',
  });
}
