import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { App } from '../../http/app-types.js';
import { OAUTH_PREFIX } from '../../http/paths.js';

export const METADATA_PATHS = [
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
];

/**
 * Hands the authorization server's paths to oidc-provider (a Koa application) untouched: Fastify
 * routes them, the provider reads the request (and its body) and writes the response itself.
 * Its endpoints follow RFC 6749/7009/7662/8414 rather than the API's problem+json conventions.
 */
export async function mountProvider(app: App, provider: Provider): Promise<void> {
  const callback = provider.callback();
  await app.register(async (scope: App) => {
    // the provider parses its own bodies: Fastify must leave the stream unread
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => {
      done(null, undefined);
    });
    const handler = (request: FastifyRequest, reply: FastifyReply): void => {
      reply.hijack();
      void callback(request.raw, reply.raw);
    };
    for (const url of [`${OAUTH_PREFIX}/*`, ...METADATA_PATHS]) {
      scope.route({ method: ['GET', 'POST', 'OPTIONS'], url, schema: { hide: true }, handler });
    }
  });
}
