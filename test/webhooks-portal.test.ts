import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { Webhook } from 'standardwebhooks';
import type { Problem } from '../src/http/problem.js';
import { emitEvents } from '../src/modules/events/outbox.js';
import { webhookDispatcher } from '../src/modules/webhooks/dispatch.js';
import type { WebhookTestResult } from '../src/modules/webhooks/test-send.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { registerApp } from './helpers/oauth.js';
import { FORM, followForm, hiddenCsrf, PORTAL, signUp, type PortalSession } from './helpers/portal.js';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local receiver: answers 200 with a header and a body, and keeps what it got. */
async function receiver(): Promise<{ url: string; got: Received[]; close(): Promise<void> }> {
  const got: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(200, { 'x-receiver': 'local', 'content-type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    got,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const verify = (secret: string, received: Received | undefined) => {
  assert.ok(received, 'the receiver got a request');
  const headers = {
    'webhook-id': String(received.headers['webhook-id']),
    'webhook-timestamp': String(received.headers['webhook-timestamp']),
    'webhook-signature': String(received.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(received.body, headers) as { type: string; data: unknown };
};

/** The portal's webhook pages (list, add, settings, rotation, log, redeliver, delete) and the test page and route. */
for (const dialect of testDialects()) {
  describe(`portal webhook pages (${dialect})`, () => {
    let ctx: TestContext;
    let local: Awaited<ReturnType<typeof receiver>>;
    let dev: PortalSession;
    before(async () => {
      ctx = await createTestContext(dialect, { allowPrivateTargets: true });
      local = await receiver();
      dev = await signUp(ctx);
    });
    after(async () => {
      await local.close();
      await ctx.close();
    });

    const page = (session: PortalSession, path: string) =>
      ctx.inject({ method: 'GET', url: `${PORTAL}${path}`, headers: { cookie: session.cookie } });
    const submit = async (
      session: PortalSession,
      formPage: LightMyRequestResponse,
      action: string,
      fields: Record<string, string>,
    ) =>
      ctx.inject({
        method: 'POST',
        url: `${PORTAL}${action}`,
        headers: { ...FORM, cookie: session.cookie },
        payload: new URLSearchParams({ _csrf: hiddenCsrf(formPage), ...fields }).toString(),
      });
    /** Adds a webhook through the form; returns its id, the page shown and the secret on it. */
    async function addWebhook(session: PortalSession, fields: Record<string, string>) {
      const list = await page(session, '/webhooks');
      assert.equal(list.statusCode, 200);
      const posted = await submit(session, list, '/webhooks/new', fields);
      assert.equal(posted.statusCode, 303, posted.body);
      const location = String(posted.headers.location);
      const id = Number(/\/webhooks\/(\d+)\?flash=/.exec(location)?.[1]);
      const shown = await followForm(ctx, posted, session.cookie);
      const secret = /id="secret" value="(whsec_[^"]+)"/.exec(shown.body)?.[1] ?? '';
      return { id, shown, secret, location };
    }

    it('adds a webhook with its secret shown once, for the developer or one of their apps', async () => {
      const { id, secret, location } = await addWebhook(dev, {
        owner: 'me',
        url: local.url,
        events: 'match.ended\nplayer.level_up',
      });
      assert.match(secret, /^whsec_/);
      const reload = await ctx.inject({ method: 'GET', url: location, headers: { cookie: dev.cookie } });
      assert.doesNotMatch(reload.body, /whsec_/, 'shown once');
      const list = await page(dev, '/webhooks');
      assert.match(list.body, new RegExp(`href="${PORTAL}/webhooks/${id}"`));
      assert.match(list.body, /my API keys/);

      const app = await registerApp(ctx, dev.accountId, { name: 'Hook App' });
      const forApp = await addWebhook(dev, { owner: `app:${app.id}`, url: local.url, events: '*' });
      const row = await ctx.testDb.db.kysely
        .selectFrom('webhooks')
        .selectAll()
        .where('id', '=', forApp.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual([row.app_id, row.user_id], [app.id, null]);
      assert.match(forApp.shown.body, /Hook App/);

      // another developer's app is not offered and not accepted
      const other = await signUp(ctx);
      const theirApp = await registerApp(ctx, other.accountId, { name: 'Not Yours' });
      const refused = await submit(dev, list, '/webhooks/new', {
        owner: `app:${theirApp.id}`,
        url: local.url,
        events: '*',
      });
      assert.equal(refused.statusCode, 303);
      assert.match((await followForm(ctx, refused, dev.cookie)).body, /Choose one of your apps/);
    });

    it('sends bad input back to the form and changes nothing', async () => {
      const count = async () =>
        (await ctx.testDb.db.kysely.selectFrom('webhooks').select('id').execute()).length;
      const before = await count();
      const list = await page(dev, '/webhooks');
      for (const [fields, message] of [
        [{ url: 'ftp://example.com/x', events: '*' }, /must use https/],
        [{ url: local.url, events: 'match.exploded' }, /Unknown event type: match.exploded/],
      ] as const) {
        const res = await submit(dev, list, '/webhooks/new', { owner: 'me', ...fields });
        assert.equal(res.statusCode, 303);
        assert.match((await followForm(ctx, res, dev.cookie)).body, message);
      }
      assert.equal(await count(), before);
      const forged = await ctx.inject({
        method: 'POST',
        url: `${PORTAL}/webhooks/new`,
        headers: { ...FORM, cookie: dev.cookie },
        payload: new URLSearchParams({
          _csrf: 'forged',
          owner: 'me',
          url: local.url,
          events: '*',
        }).toString(),
      });
      assert.equal(forged.statusCode, 403);
      assert.equal(await count(), before);
    });

    it('keeps another developer out of a webhook', async () => {
      const { id } = await addWebhook(dev, { owner: 'me', url: local.url, events: '*' });
      const other = await signUp(ctx);
      assert.equal((await page(other, `/webhooks/${id}`)).statusCode, 404);
      const theirs = await page(other, '/webhooks');
      for (const action of ['edit', 'secret', 'delete']) {
        // each form's own fields (a field a form does not have is a 400 before anything else)
        const fields: Record<string, string> =
          action === 'edit' ? { url: 'https://evil.example/', events: '*' } : {};
        const res = await submit(other, theirs, `/webhooks/${id}/${action}`, fields);
        assert.equal(res.statusCode, 404, action);
      }
      assert.equal((await page(dev, `/webhooks/${id}`)).statusCode, 200, 'still there');
    });

    it('edits, rotates, shows the delivery log with redeliver, and deletes', async () => {
      const { id, shown, secret } = await addWebhook(dev, {
        owner: 'me',
        url: local.url,
        events: 'match.ended',
      });
      const edited = await submit(dev, shown, `/webhooks/${id}/edit`, {
        url: local.url,
        events: 'match.ended, player.level_up',
        description: 'staging',
      });
      const afterEdit = await followForm(ctx, edited, dev.cookie);
      assert.match(afterEdit.body, /Disabled \(owner\)/, 'the unticked box turns it off');
      assert.match(afterEdit.body, /staging/);

      const rotated = await followForm(
        ctx,
        await submit(dev, afterEdit, `/webhooks/${id}/secret`, {}),
        dev.cookie,
      );
      const second = /id="secret" value="(whsec_[^"]+)"/.exec(rotated.body)?.[1];
      assert.ok(second && second !== secret);

      await submit(dev, rotated, `/webhooks/${id}/edit`, {
        url: local.url,
        events: 'match.ended',
        enabled: 'on',
      });
      const { kysely } = ctx.testDb.db;
      const at = Date.now() + 1000;
      await kysely
        .transaction()
        .execute((trx) => emitEvents(trx, dialect, [{ type: 'match.ended', data: { n: 1 } }], at));
      while ((await webhookDispatcher(ctx.testDb.db).dispatch(at)) > 0);
      const delivery = await kysely
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('webhook_id', '=', id)
        .executeTakeFirstOrThrow();
      await kysely
        .updateTable('webhook_deliveries')
        .set({ status: 'dead', attempts: 8, last_status_code: 503 })
        .where('id', '=', delivery.id)
        .execute();
      const log = await page(dev, `/webhooks/${id}`);
      assert.match(log.body, /evt_\d{16}/);
      assert.match(log.body, /dead/);
      const redeliver = await submit(dev, log, `/webhooks/${id}/deliveries/${delivery.id}/redeliver`, {});
      assert.match((await followForm(ctx, redeliver, dev.cookie)).body, /Queued to be sent again/);
      const again = await kysely
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('id', '=', delivery.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual([again.status, again.attempts], ['pending', 0]);

      const deleted = await followForm(ctx, await submit(dev, log, `/webhooks/${id}/delete`, {}), dev.cookie);
      assert.match(deleted.body, /deleted/);
      assert.equal((await page(dev, `/webhooks/${id}`)).statusCode, 404);
    });

    it('the test page sends a signed sample to a webhook and shows the answer', async () => {
      const { id, secret } = await addWebhook(dev, { owner: 'me', url: local.url, events: '*' });
      const testPage = await page(dev, '/webhook-test');
      assert.equal(testPage.statusCode, 200);
      assert.match(testPage.body, /<option value="match.ended">/);
      const before = local.got.length;
      const sent = await submit(dev, testPage, '/webhook-test/send', {
        event_type: 'player.level_up',
        webhook_id: String(id),
      });
      assert.equal(sent.statusCode, 303, sent.body);
      const result = await followForm(ctx, sent, dev.cookie);
      assert.match(result.body, /id="result-status">200</);
      assert.match(result.body, /x-receiver/);
      assert.match(result.body, /id="result-body">thanks</);
      assert.equal(local.got.length, before + 1);
      const event = verify(secret, local.got.at(-1));
      assert.equal(event.type, 'player.level_up');
    });

    it('POST /webhook-test (JSON, session + CSRF) sends to a URL and reports the answer', async () => {
      const res = await dev.call('POST', '/webhook-test', { event_type: 'match.ended', url: local.url });
      assert.equal(res.statusCode, 200, res.body);
      const result = res.json<WebhookTestResult>();
      assert.deepEqual(
        [result.ok, result.status, result.body_excerpt, result.headers['x-receiver']],
        [true, 200, 'thanks', 'local'],
      );
      assert.ok(result.secret);
      const event = verify(result.secret, local.got.at(-1));
      assert.equal(event.type, 'match.ended');
      assert.match(result.event.id, /^evt_test_/);

      const given = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
      const signed = await dev.call('POST', '/webhook-test', {
        event_type: 'match.ended',
        url: local.url,
        secret: given,
      });
      assert.equal(signed.json<WebhookTestResult>().secret, null);
      verify(given, local.got.at(-1));

      const problem = (r: LightMyRequestResponse, status: number, code: string) => {
        assert.equal(r.statusCode, status, r.body);
        assert.equal(r.json<Problem>().code, code);
      };
      const count = local.got.length;
      problem(
        await dev.call('POST', '/webhook-test', { event_type: 'match.exploded', url: local.url }),
        422,
        'unknown_event_type',
      );
      problem(await dev.call('POST', '/webhook-test', { event_type: 'match.ended' }), 422, 'unprocessable');
      problem(
        await dev.call('POST', '/webhook-test', { event_type: 'match.ended', url: 'ftp://x.example/' }),
        422,
        'invalid_webhook_url',
      );
      problem(
        await dev.call('POST', '/webhook-test', {
          event_type: 'match.ended',
          url: local.url,
          secret: 'nope',
        }),
        422,
        'unprocessable',
      );
      const other = await signUp(ctx);
      const { id } = await addWebhook(dev, { owner: 'me', url: local.url, events: '*' });
      problem(
        await other.call('POST', '/webhook-test', { event_type: 'match.ended', webhook_id: id }),
        404,
        'webhook_not_found',
      );
      problem(
        await dev.call(
          'POST',
          '/webhook-test',
          { event_type: 'match.ended', url: local.url },
          { 'x-csrf-token': 'forged' },
        ),
        403,
        'csrf_failed',
      );
      const anonymous = await ctx.inject({
        method: 'POST',
        url: `${PORTAL}/webhook-test`,
        payload: { event_type: 'match.ended', url: local.url },
      });
      assert.equal(anonymous.statusCode, 401);
      assert.equal(local.got.length, count, 'nothing was sent for a refused request');
    });
  });
}
