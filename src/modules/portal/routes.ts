import { Type } from 'typebox';
import type { App } from '../../http/app-types.js';
import { IdParam } from '../../http/schemas.js';
import type { PortalKeysService } from './keys-service.js';
import {
  CreatedKeyResponse,
  KeyOriginsBody,
  KeyResponse,
  MyKeysResponse,
  NewKeyBody,
  portalOperation,
  RevokedKeyResponse,
  UsageResponse,
  type CreatedKeyBody,
  type KeyBody,
  type MyKeysBody,
  type RevokedKeyBody,
  type UsageBody,
} from './schemas.js';
import type { PortalAccount } from './session-auth.js';

export const PORTAL_BODY_LIMIT = 16_384;

const signedIn = (account: PortalAccount | undefined): PortalAccount => {
  // requireSession ran before the handler; its absence is a wiring bug, not a client error.
  if (!account) throw new Error('portal route without session hook');
  return account;
};

/** JSON key management for the signed-in account (session cookie + x-csrf-token on writes). */
export function portalKeyRoutes(service: PortalKeysService) {
  return (app: App): void => {
    app.get(
      '/my-keys',
      {
        schema: portalOperation({
          operationId: 'developer_my_keys_list',
          summary: 'List my API keys',
          description:
            "The signed-in account's keys, newest first, revoked ones included: name, display prefix, tier, hourly quota, creation, last use and requests counted in the current hour against the key's quota. The secret is never listed.",
          response: { 200: MyKeysResponse },
          errors: ['unauthenticated'],
        }),
      },
      async (request): Promise<MyKeysBody> => ({ keys: await service.list(signedIn(request.account)) }),
    );

    app.post(
      '/keys',
      {
        bodyLimit: PORTAL_BODY_LIMIT,
        schema: portalOperation({
          operationId: 'developer_keys_create',
          summary: 'Create an API key',
          description:
            "Creates a key that follows the account's plan (its tier changes with the subscription on the next request). The hourly quota is the account's: all its keys share one count, so a new key adds no requests. The response carries the secret once; store it, it cannot be shown again. An account may hold 10 active keys (`409 key_limit_reached`) and create 10 keys in any 24 hours, revoked ones included (`429 key_creation_limited` with `Retry-After`).",
          body: NewKeyBody,
          response: { 201: CreatedKeyResponse },
          errors: [
            'invalid_body',
            'unauthenticated',
            'csrf_failed',
            'key_limit_reached',
            'key_creation_limited',
            'payload_too_large',
            'unsupported_media_type',
          ],
        }),
      },
      async (request, reply): Promise<CreatedKeyBody> => {
        const created = await service.create(signedIn(request.account), request.body.name);
        reply.code(201);
        return created;
      },
    );

    app.delete(
      '/keys/:id',
      {
        schema: portalOperation({
          operationId: 'developer_keys_revoke',
          summary: 'Revoke an API key',
          description:
            "Revokes one of the caller's keys; the very next API request with it gets `401`. Revoking a revoked key returns it unchanged. A key of another account answers `404`, as an unknown id does.",
          params: IdParam('API key'),
          response: { 200: RevokedKeyResponse },
          errors: ['invalid_parameter', 'unauthenticated', 'csrf_failed', 'key_not_found'],
        }),
      },
      async (request): Promise<RevokedKeyBody> => ({
        key: await service.revoke(signedIn(request.account), request.params.id),
      }),
    );

    app.put(
      '/keys/:id/origins',
      {
        bodyLimit: PORTAL_BODY_LIMIT,
        schema: portalOperation({
          operationId: 'developer_keys_origins_update',
          summary: 'Restrict an API key to browser origins',
          description:
            "Sets the browser origins a key may be used from, for keys used by a web page (CORS). A request that carries an `Origin` header not on the list gets `403 origin_not_allowed`, before it spends quota; requests without `Origin` (servers, scripts) are not affected, so the list keeps other sites from using a key published in a page but does not make it secret. An empty list allows any origin again. Applies from the key's next request.",
          params: IdParam('API key'),
          body: KeyOriginsBody,
          response: { 200: KeyResponse },
          errors: [
            'invalid_parameter',
            'invalid_body',
            'unauthenticated',
            'csrf_failed',
            'key_not_found',
            'unprocessable',
            'payload_too_large',
            'unsupported_media_type',
          ],
        }),
      },
      async (request): Promise<KeyBody> => ({
        key: await service.setOrigins(signedIn(request.account), request.params.id, request.body.origins),
      }),
    );

    app.get(
      '/keys/:id/usage',
      {
        schema: portalOperation({
          operationId: 'developer_keys_usage_get',
          summary: 'Hourly usage of an API key',
          description:
            'Requests per UTC hour and status class (2xx, 3xx, 4xx, 429, 5xx) for the last `hours` hours, current hour last. Counts are written in batches every few seconds; usage is kept for at least 30 days.',
          params: IdParam('API key'),
          querystring: Type.Object({
            hours: Type.Integer({
              minimum: 1,
              maximum: 720,
              default: 48,
              description: 'Hours to return, 1-720 (default 48).',
            }),
          }),
          response: { 200: UsageResponse },
          errors: ['invalid_parameter', 'unauthenticated', 'key_not_found'],
        }),
      },
      async (request): Promise<UsageBody> => ({
        usage: await service.usage(signedIn(request.account), request.params.id, request.query.hours),
      }),
    );
  };
}
