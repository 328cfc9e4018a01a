import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { API_PREFIX, V1_PREFIX } from './paths.js';
import { CONTINUE } from './pipeline-steps.js';
import { ProblemError } from './problem.js';

/** What a page may read of an answer: the quota, the request id, caching and retry hints. */
export const CORS_EXPOSED_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-used',
  'x-ratelimit-reset',
  'ratelimit-policy',
  'ratelimit',
  'retry-after',
  'x-request-id',
  'etag',
  'idempotent-replayed',
  'www-authenticate',
].join(', ');
// last-event-id: a page resuming the event stream (GET /v1/events/stream) sends it, as the client
// library does on every reconnect
const ALLOWED_HEADERS =
  'x-api-key, authorization, content-type, if-none-match, idempotency-key, last-event-id';
const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';
/** how long a browser may reuse a preflight's answer (Chromium caps it at 2 hours) */
const PREFLIGHT_MAX_AGE_S = 7200;

/**
 * Pipeline step of the published API and /v1: a browser call (it carries `Origin`) may read the
 * answer from any origin. Credentials are never cookies there (a key or a bearer token, sent by the
 * page itself), so `*` is safe and no `Access-Control-Allow-Credentials` is sent. Set before the
 * credential is checked, so that a 401, 403 or 429 is readable by the page too.
 */
export function corsStep(request: FastifyRequest, reply: FastifyReply): boolean {
  if (request.headers.origin !== undefined) {
    reply.header('access-control-allow-origin', '*');
    reply.header('access-control-expose-headers', CORS_EXPOSED_HEADERS);
  }
  return CONTINUE;
}

/**
 * A key restricted to some origins is refused, before it spends quota, when a browser uses it from
 * another one. Requests without `Origin` (servers, scripts) are not browser calls and pass: the
 * list keeps other web sites from using a key published in a page, nothing more.
 */
export function assertOriginAllowed(request: FastifyRequest, allowed: readonly string[] | null): void {
  const origin = request.headers.origin;
  if (allowed === null || origin === undefined || allowed.includes(origin)) return;
  const shown = origin.length > 100 ? `${origin.slice(0, 100)}…` : origin;
  throw new ProblemError(
    'origin_not_allowed',
    `This API key may be used only from its allowed origins; '${shown}' is not one of them.`,
  );
}

/**
 * CORS preflights (`OPTIONS` with `Access-Control-Request-Method`) under the published API and
 * /v1: answered 204 for any origin, without a credential (browsers send none with a preflight).
 * The portal and OAuth pages get no CORS at all: they stay same-origin.
 */
export const corsPreflightPlugin = fp(
  (app: FastifyInstance) => {
    const preflight = (_request: FastifyRequest, reply: FastifyReply) =>
      reply
        .code(204)
        .header('access-control-allow-origin', '*')
        .header('access-control-allow-methods', ALLOWED_METHODS)
        .header('access-control-allow-headers', ALLOWED_HEADERS)
        .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_S))
        .send();
    for (const prefix of [API_PREFIX, V1_PREFIX]) {
      app.options(`${prefix}/*`, { schema: { hide: true } }, preflight);
    }
  },
  { name: 'cors-preflight' },
);
