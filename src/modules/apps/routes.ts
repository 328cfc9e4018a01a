import type { App } from '../../http/app-types.js';
import { IdParam } from '../../http/schemas.js';
import { portalOperation } from '../portal/schemas.js';
import { PORTAL_BODY_LIMIT } from '../portal/routes.js';
import type { PortalAccount } from '../portal/session-auth.js';
import {
  AppChangesBody,
  AppResponse,
  AppSchema,
  AppsResponse,
  appView,
  CreatedAppResponse,
  NewAppBody,
  RotatedSecretResponse,
  type AppBody,
  type AppsBody,
  type CreatedAppBody,
} from './schemas.js';
import type { AppsService } from './service.js';

const signedIn = (account: PortalAccount | undefined): PortalAccount => {
  // requireSession ran before the handler; its absence is a wiring bug, not a client error.
  if (!account) throw new Error('portal route without session hook');
  return account;
};

const WRITE_ERRORS = [
  'invalid_body',
  'unauthenticated',
  'csrf_failed',
  'unprocessable',
  'payload_too_large',
  'unsupported_media_type',
] as const;

/** JSON routes of the apps a developer registers (session cookie + x-csrf-token on writes). */
export function appRoutes(service: AppsService) {
  return (app: App): void => {
    app.addSchema(AppSchema);

    app.get(
      '/my-apps',
      {
        schema: portalOperation({
          operationId: 'developer_my_apps_list',
          summary: 'List my OAuth apps',
          description: "The signed-in developer's registered apps, newest first. Secrets are never listed.",
          response: { 200: AppsResponse },
          errors: ['unauthenticated'],
        }),
      },
      async (request): Promise<AppsBody> => ({
        apps: (await service.list(signedIn(request.account).id)).map(appView),
      }),
    );

    app.post(
      '/my-apps',
      {
        bodyLimit: PORTAL_BODY_LIMIT,
        schema: portalOperation({
          operationId: 'developer_my_apps_create',
          summary: 'Register an OAuth app',
          description:
            'Registers an app: its users sign in with their hub account and grant it scopes (authorization code with PKCE S256). A confidential app gets a client secret, returned this once and stored only as a SHA-256; rotate it if lost. Redirect URIs are matched exactly.',
          body: NewAppBody,
          response: { 201: CreatedAppResponse },
          errors: [...WRITE_ERRORS],
        }),
      },
      async (request, reply): Promise<CreatedAppBody> => {
        const created = await service.create(signedIn(request.account).id, request.body);
        reply.code(201);
        return { app: appView(created.app), client_secret: created.secret ?? null };
      },
    );

    app.get(
      '/my-apps/:id',
      {
        schema: portalOperation({
          operationId: 'developer_my_apps_get',
          summary: 'Get one of my OAuth apps',
          description: 'One app of the caller; an app of another developer is `404`, as an unknown id is.',
          params: IdParam('App'),
          response: { 200: AppResponse },
          errors: ['invalid_parameter', 'unauthenticated', 'not_found'],
        }),
      },
      async (request): Promise<AppBody> => ({
        app: appView(await service.get(signedIn(request.account).id, request.params.id)),
      }),
    );

    app.patch(
      '/my-apps/:id',
      {
        bodyLimit: PORTAL_BODY_LIMIT,
        schema: portalOperation({
          operationId: 'developer_my_apps_update',
          summary: 'Change an OAuth app',
          description:
            'Changes the name, redirect URIs, homepage or logo of an app. Whether it is public or confidential cannot change (register another app).',
          params: IdParam('App'),
          body: AppChangesBody,
          response: { 200: AppResponse },
          errors: ['invalid_parameter', 'not_found', ...WRITE_ERRORS],
        }),
      },
      async (request): Promise<AppBody> => ({
        app: appView(await service.update(signedIn(request.account).id, request.params.id, request.body)),
      }),
    );

    app.post(
      '/my-apps/:id/secret',
      {
        schema: portalOperation({
          operationId: 'developer_my_apps_secret_rotate',
          summary: "Rotate an app's client secret",
          description:
            'Issues a new client secret for a confidential app and returns it once; the previous secret stops working at once (tokens already issued keep working). A public app has no secret: `409 conflict`.',
          params: IdParam('App'),
          response: { 200: RotatedSecretResponse },
          errors: ['invalid_parameter', 'unauthenticated', 'csrf_failed', 'not_found', 'conflict'],
        }),
      },
      async (request) => ({
        client_secret: await service.rotateSecret(signedIn(request.account).id, request.params.id),
      }),
    );

    app.delete(
      '/my-apps/:id',
      {
        schema: portalOperation({
          operationId: 'developer_my_apps_delete',
          summary: 'Delete an OAuth app',
          description:
            'Deletes an app and revokes every grant, code and token it holds: the next API call with one of its tokens is `401`.',
          params: IdParam('App'),
          response: { 204: { type: 'null', description: 'Deleted' } },
          errors: ['invalid_parameter', 'unauthenticated', 'csrf_failed', 'not_found'],
        }),
      },
      async (request, reply) => {
        await service.delete(signedIn(request.account).id, request.params.id);
        return reply.code(204).send();
      },
    );
  };
}
