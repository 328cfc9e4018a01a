import type { FastifyInstance, FastifyRequest } from 'fastify';
import { redactQuery } from './secrets.js';

/**
 * One access-log line per request (Fastify's default is two). Matched routes are logged by their
 * pattern plus query string, so a secret in a path (an ingest token in the URL) never reaches logs.
 */
export function registerAccessLog(
  app: FastifyInstance,
  options: { quiet?: ((request: FastifyRequest) => boolean) | undefined } = {},
): void {
  // Below info nothing would be written, so the hook is not installed at all.
  if (!['info', 'debug', 'trace'].includes(app.log.level)) return;
  app.addHook('onResponse', async (request, reply) => {
    if (options.quiet?.(request)) return;
    const pattern = request.routeOptions.url ?? request.routePattern;
    const query = request.url.indexOf('?');
    // the query is kept (it says what was asked) but a secret put there by mistake is not
    const url = pattern
      ? pattern + (query >= 0 ? redactQuery(request.url.slice(query)) : '')
      : request.url.split('?')[0];
    // the root logger with the request id spelled out: the same line as the request's child logger
    // would write, without making that child
    app.log.info(
      {
        reqId: request.id,
        method: request.method,
        url,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 100) / 100,
        ...(request.apiKey ? { key: request.apiKey.id } : {}),
      },
      'request',
    );
  });
}
