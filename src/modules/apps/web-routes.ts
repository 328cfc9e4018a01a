import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/app-types.js';
import { ProblemError } from '../../http/problem.js';
import type { AccountsService } from '../accounts/service.js';
import type { PortalFlashes } from '../portal/flash.js';
import { formRoute, signedInPage, pageReply, seeOther } from '../portal/pages/web-session.js';
import { PORTAL_PREFIX } from '../portal/session-auth.js';
import { appPage, appsPage } from './pages.js';
import { appView } from './schemas.js';
import type { AppsService } from './service.js';

type Form = Record<string, string | undefined>;
const HIDE = { schema: { hide: true } } as const;
const BASE = PORTAL_PREFIX;

const lines = (text: string | undefined) =>
  (text ?? '')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
const optional = (text: string | undefined) => (text?.trim() ? text.trim() : null);
const appId = (raw: string): number => {
  if (!/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2147483647) {
    throw new ProblemError('not_found', 'No such app.');
  }
  return Number(raw);
};
const problemText = (err: unknown): string[] | undefined =>
  err instanceof ProblemError && (err.code === 'unprocessable' || err.code === 'conflict')
    ? [err.message]
    : undefined;

/** The apps pages of the portal: list and register, settings, secret rotation, deletion (PRG). */
export function appWebRoutes(apps: AppsService, accounts: AccountsService, flashes: PortalFlashes) {
  const session = signedInPage(accounts);
  async function back(reply: FastifyReply, owner: string, path: string, errors?: string[], success?: string) {
    const id = await flashes.put(owner, {
      kind: 'notice',
      ...(errors ? { errors } : {}),
      ...(success ? { success } : {}),
    });
    return seeOther(reply, `${path}?flash=${id}`);
  }
  const take = (owner: string, request: FastifyRequest) => flashes.take(owner, (request.query as Form).flash);

  return (app: App): void => {
    app.get('/apps', HIDE, async (request, reply) => {
      const account = await session(request, reply);
      if (!account) return reply;
      const flash = await take(account.sessionId, request);
      const notice = flash?.kind === 'notice' ? flash : {};
      return pageReply(reply, appsPage(account, (await apps.list(account.id)).map(appView), notice));
    });

    app.post(
      '/apps/new',
      formRoute('name', 'kind', 'redirect_uris', 'homepage_url', 'logo_url'),
      async (request, reply) => {
        const account = await session(request, reply);
        if (!account) return reply;
        const form = request.body as Form;
        try {
          const created = await apps.create(account.id, {
            name: (form.name ?? '').slice(0, 200),
            kind: form.kind === 'public' ? 'public' : 'confidential',
            redirect_uris: lines(form.redirect_uris),
            homepage_url: optional(form.homepage_url),
            logo_url: optional(form.logo_url),
          });
          const id = await flashes.put(account.sessionId, {
            kind: 'app_secret',
            appId: created.app.id,
            secret: created.secret ?? '',
          });
          return await seeOther(reply, `${BASE}/apps/${created.app.id}?flash=${id}`);
        } catch (err) {
          const errors = problemText(err);
          if (!errors) throw err;
          return back(reply, account.sessionId, `${BASE}/apps`, errors);
        }
      },
    );

    app.get<{ Params: { id: string } }>('/apps/:id', HIDE, async (request, reply) => {
      const account = await session(request, reply);
      if (!account) return reply;
      const found = await apps.get(account.id, appId(request.params.id));
      const flash = await take(account.sessionId, request);
      const notice =
        flash?.kind === 'notice'
          ? flash
          : flash?.kind === 'app_secret' && flash.appId === found.id && flash.secret
            ? { secret: flash.secret, success: 'App registered.' }
            : {};
      return pageReply(reply, appPage(account, appView(found), notice));
    });

    app.post<{ Params: { id: string } }>(
      '/apps/:id/edit',
      formRoute('name', 'redirect_uris', 'homepage_url', 'logo_url'),
      async (request, reply) => {
        const account = await session(request, reply);
        if (!account) return reply;
        const id = appId(request.params.id);
        const form = request.body as Form;
        try {
          await apps.update(account.id, id, {
            name: (form.name ?? '').slice(0, 200),
            redirect_uris: lines(form.redirect_uris),
            homepage_url: optional(form.homepage_url),
            logo_url: optional(form.logo_url),
          });
          return await back(reply, account.sessionId, `${BASE}/apps/${id}`, undefined, 'Saved.');
        } catch (err) {
          const errors = problemText(err);
          if (!errors) throw err;
          return back(reply, account.sessionId, `${BASE}/apps/${id}`, errors);
        }
      },
    );

    app.post<{ Params: { id: string } }>('/apps/:id/secret', formRoute(), async (request, reply) => {
      const account = await session(request, reply);
      if (!account) return reply;
      const id = appId(request.params.id);
      const secret = await apps.rotateSecret(account.id, id);
      const flash = await flashes.put(account.sessionId, { kind: 'app_secret', appId: id, secret });
      return seeOther(reply, `${BASE}/apps/${id}?flash=${flash}`);
    });

    app.post<{ Params: { id: string } }>('/apps/:id/delete', formRoute(), async (request, reply) => {
      const account = await session(request, reply);
      if (!account) return reply;
      const deleted = await apps.delete(account.id, appId(request.params.id));
      return back(reply, account.sessionId, `${BASE}/apps`, undefined, `App “${deleted.name}” deleted.`);
    });
  };
}
