import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/app-types.js';
import { ProblemError } from '../../http/problem.js';
import type { AccountsService } from '../accounts/service.js';
import { EVENT_CATALOG } from '../events/catalog.js';
import type { PortalFlashes } from '../portal/flash.js';
import { formOf, formRoute, pageReply, seeOther, signedInPage } from '../portal/pages/web-session.js';
import { PORTAL_PREFIX, type PortalAccount } from '../portal/session-auth.js';
import { webhookPage, webhooksPage, webhookTestPage, type OwnerChoice, type PortalWebhook } from './pages.js';
import { ownerOfRow, type WebhookRow } from './repo.js';
import { deliveryBody, webhookBody } from './schemas.js';
import type { WebhooksService } from './service.js';
import type { WebhookTester } from './test-send.js';

type Form = Record<string, string | undefined>;
const HIDE = { schema: { hide: true } } as const;
const BASE = PORTAL_PREFIX;
const ME = 'me';

/** The apps a developer registered, to offer them as owners and name them. */
export type AppsOf = (accountId: number) => Promise<{ id: number; name: string }[]>;

const idOf = (raw: string | undefined): number => {
  if (!raw || !/^[1-9]\d{0,14}$/.test(raw)) throw new ProblemError('not_found', 'No such webhook.');
  return Number(raw);
};
const typesOf = (text: string | undefined) =>
  (text ?? '')
    .split(/[\s,]+/)
    .map((t) => t.trim())
    .filter(Boolean);
/** Input problems go back to the form; anything else is an error page. */
const INPUT_CODES = new Set([
  'invalid_webhook_url',
  'unknown_event_type',
  'unprocessable',
  'webhook_not_found',
]);
const problemText = (err: unknown): string[] | undefined =>
  err instanceof ProblemError && INPUT_CODES.has(err.code) ? [err.message] : undefined;

/** The portal's webhook pages: list and add, settings, rotation, deletion, the delivery log, the test page. */
export function webhookWebRoutes(deps: {
  webhooks: WebhooksService;
  tester: WebhookTester;
  appsOf: AppsOf;
  accounts: AccountsService;
  flashes: PortalFlashes;
}) {
  const { webhooks, tester, appsOf, flashes } = deps;
  const session = signedInPage(deps.accounts);
  const repo = webhooks.repo;

  async function back(
    reply: FastifyReply,
    owner: string,
    path: string,
    notice: { errors?: string[]; success?: string },
  ) {
    const id = await flashes.put(owner, { kind: 'notice', ...notice });
    return seeOther(reply, `${path}?flash=${id}`);
  }
  const take = (owner: string, request: FastifyRequest) => flashes.take(owner, (request.query as Form).flash);

  async function portalWebhooks(account: PortalAccount, rows: WebhookRow[]): Promise<PortalWebhook[]> {
    const apps = new Map((await appsOf(account.id)).map((app) => [app.id, app.name]));
    return rows.map((row) => ({
      ...webhookBody(row),
      owner: row.app_id === null ? 'my API keys' : `app “${apps.get(row.app_id) ?? row.app_id}”`,
    }));
  }
  async function ownedRow(account: PortalAccount, raw: string | undefined): Promise<WebhookRow> {
    const id = idOf(raw);
    const row = await repo.findForAccount(account.id, id);
    if (!row) throw new ProblemError('not_found', 'No such webhook.');
    return row;
  }

  return (app: App): void => {
    app.get('/webhooks', HIDE, async (request, reply) => {
      const account = await session(request, reply);
      if (!account) return reply;
      const flash = await take(account.sessionId, request);
      const apps = await appsOf(account.id);
      const owners: OwnerChoice[] = [
        { value: ME, label: 'My API keys' },
        ...apps.map((a) => ({ value: `app:${a.id}`, label: `App “${a.name}”` })),
      ];
      const list = await portalWebhooks(account, await repo.listForAccount(account.id));
      return pageReply(reply, webhooksPage(account, list, owners, flash?.kind === 'notice' ? flash : {}));
    });

    app.post('/webhooks/new', formRoute('owner', 'url', 'events', 'description'), async (request, reply) => {
      const account = await session(request, reply);
      if (!account) return reply;
      const form = formOf(request);
      try {
        const choice = form.owner ?? ME;
        let owner: { userId: number } | { appId: number } = { userId: account.id };
        if (choice !== ME) {
          const appId = Number(choice.replace(/^app:/, ''));
          if (!(await appsOf(account.id)).some((a) => a.id === appId))
            throw new ProblemError('unprocessable', 'Choose one of your apps.');
          owner = { appId };
        }
        const created = await webhooks.create(owner, {
          url: (form.url ?? '').trim(),
          events: typesOf(form.events),
          description: form.description ?? null,
        });
        const id = await flashes.put(account.sessionId, {
          kind: 'webhook_secret',
          webhookId: created.webhook.id,
          secret: created.secret,
        });
        return await seeOther(reply, `${BASE}/webhooks/${created.webhook.id}?flash=${id}`);
      } catch (err) {
        const errors = problemText(err);
        if (!errors) throw err;
        return back(reply, account.sessionId, `${BASE}/webhooks`, { errors });
      }
    });

    app.get<{ Params: { id: string } }>('/webhooks/:id', HIDE, async (request, reply) => {
      const account = await session(request, reply);
      if (!account) return reply;
      const row = await ownedRow(account, request.params.id);
      const [webhook] = await portalWebhooks(account, [row]);
      const { rows } = await webhooks.deliveries(ownerOfRow(row), row.id, {}, { limit: 50, offset: 0 });
      const flash = await take(account.sessionId, request);
      const notice =
        flash?.kind === 'notice'
          ? flash
          : flash?.kind === 'webhook_secret' && flash.webhookId === row.id
            ? { secret: flash.secret, success: 'Webhook saved.' }
            : {};
      if (!webhook) throw new Error('a webhook row without its view');
      return pageReply(reply, webhookPage(account, webhook, rows.map(deliveryBody), notice));
    });

    app.post<{ Params: { id: string } }>(
      '/webhooks/:id/edit',
      formRoute('url', 'events', 'description', 'enabled'),
      async (request, reply) => {
        const account = await session(request, reply);
        if (!account) return reply;
        const row = await ownedRow(account, request.params.id);
        const form = formOf(request);
        const path = `${BASE}/webhooks/${row.id}`;
        try {
          await webhooks.update(ownerOfRow(row), row.id, {
            url: (form.url ?? '').trim(),
            events: typesOf(form.events),
            description: form.description ?? null,
            enabled: form.enabled === 'on',
          });
          return await back(reply, account.sessionId, path, { success: 'Saved.' });
        } catch (err) {
          const errors = problemText(err);
          if (!errors) throw err;
          return back(reply, account.sessionId, path, { errors });
        }
      },
    );

    app.post<{ Params: { id: string } }>('/webhooks/:id/secret', formRoute(), async (request, reply) => {
      const account = await session(request, reply);
      if (!account) return reply;
      const row = await ownedRow(account, request.params.id);
      const { secret } = await webhooks.rotateSecret(ownerOfRow(row), row.id);
      const flash = await flashes.put(account.sessionId, {
        kind: 'webhook_secret',
        webhookId: row.id,
        secret,
      });
      return seeOther(reply, `${BASE}/webhooks/${row.id}?flash=${flash}`);
    });

    app.post<{ Params: { id: string } }>('/webhooks/:id/delete', formRoute(), async (request, reply) => {
      const account = await session(request, reply);
      if (!account) return reply;
      const row = await ownedRow(account, request.params.id);
      await webhooks.delete(ownerOfRow(row), row.id);
      return back(reply, account.sessionId, `${BASE}/webhooks`, { success: `Webhook ${row.url} deleted.` });
    });

    app.post<{ Params: { id: string; delivery: string } }>(
      '/webhooks/:id/deliveries/:delivery/redeliver',
      formRoute(),
      async (request, reply) => {
        const account = await session(request, reply);
        if (!account) return reply;
        const row = await ownedRow(account, request.params.id);
        const path = `${BASE}/webhooks/${row.id}`;
        try {
          await webhooks.redeliver(ownerOfRow(row), row.id, idOf(request.params.delivery));
          return await back(reply, account.sessionId, path, { success: 'Queued to be sent again.' });
        } catch (err) {
          if (err instanceof ProblemError && (err.code === 'delivery_not_found' || err.code === 'not_found'))
            return back(reply, account.sessionId, path, { errors: ['No such delivery.'] });
          throw err;
        }
      },
    );

    app.get('/webhook-test', HIDE, async (request, reply) => {
      const account = await session(request, reply);
      if (!account) return reply;
      const flash = await take(account.sessionId, request);
      const list = await portalWebhooks(account, await repo.listForAccount(account.id));
      return pageReply(
        reply,
        webhookTestPage(account, {
          types: [...EVENT_CATALOG.keys()],
          webhooks: list,
          ...(flash?.kind === 'webhook_test' ? { result: flash.result } : {}),
          notice: flash?.kind === 'notice' ? flash : {},
        }),
      );
    });

    app.post(
      '/webhook-test/send',
      formRoute('event_type', 'webhook_id', 'url', 'secret'),
      async (request, reply) => {
        const account = await session(request, reply);
        if (!account) return reply;
        const form = formOf(request);
        try {
          const webhookId = form.webhook_id ? idOf(form.webhook_id) : undefined;
          const result = await tester(account.id, {
            event_type: form.event_type ?? '',
            ...(webhookId === undefined ? { url: (form.url ?? '').trim() } : { webhook_id: webhookId }),
            ...(webhookId === undefined && form.secret?.trim() ? { secret: form.secret.trim() } : {}),
          });
          const id = await flashes.put(account.sessionId, { kind: 'webhook_test', result });
          return await seeOther(reply, `${BASE}/webhook-test?flash=${id}#result`);
        } catch (err) {
          const errors = problemText(err);
          if (!errors) throw err;
          return back(reply, account.sessionId, `${BASE}/webhook-test`, { errors });
        }
      },
    );
  };
}
