import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { buildApp } from '../src/app.js';
import { browserSkipReason, launchChromium } from './helpers/browser.js';
import { openTestDb, type TestDb } from './helpers/db.js';
import { GOOD_PASSWORD, uniqueName } from './helpers/portal.js';

const ARTIFACTS = 'test-artifacts';

// A developer adds a webhook in a real browser and runs the test page against a local receiver.
describe('portal webhooks in a browser', { skip: browserSkipReason }, () => {
  let testDb: TestDb;
  let app: FastifyInstance;
  let browser: Browser;
  let page: Page;
  let base: string;
  let receiver: Server;
  let hookUrl: string;
  const got: { headers: IncomingHttpHeaders; body: string }[] = [];

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    testDb = await openTestDb('sqlite');
    app = await buildApp({
      db: testDb.db,
      config: {
        LOG_LEVEL: 'silent',
        CACHE_TTL_MS: 0,
        TRUST_PROXY: false,
        WEBHOOKS_ALLOW_PRIVATE_TARGETS: true,
      },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        got.push({ headers: req.headers, body });
        res.writeHead(202, { 'x-receiver': 'browser-test' }).end('received ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/hub`;
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
  });

  after(async () => {
    await browser.close();
    await new Promise((resolve) => receiver.close(resolve));
    await app.close();
    await testDb.drop();
  });

  const shot = (name: string) =>
    page.screenshot({ path: `${ARTIFACTS}/webhooks-${name}.png`, fullPage: true });

  it('adds a webhook, copies its secret, and sends it a signed test event', async () => {
    await page.goto(`${base}/api-platform/developer/sign-up`);
    await page.getByLabel('Username').fill(uniqueName('Hooks'));
    await page.getByLabel('Password').fill(GOOD_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();

    await page.getByRole('link', { name: 'Webhooks' }).click();
    assert.equal(new URL(page.url()).pathname, '/api-platform/developer/webhooks');
    await page.getByLabel('Endpoint URL').fill(hookUrl);
    await page.getByLabel('Event types').fill('match.ended\nplayer.level_up');
    await page.getByLabel('Description (optional)').fill('browser receiver');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secret = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    assert.match(secret, /^whsec_/);
    await shot('created');

    await page.reload();
    assert.equal(
      await page.getByRole('textbox', { name: 'Signing secret' }).count(),
      0,
      'the secret is shown once',
    );

    await page.goto(`${base}/api-platform/developer/webhook-test`);
    await page.getByLabel('Event type').selectOption('player.level_up');
    await page.getByLabel('To one of your webhooks').selectOption({ label: `${hookUrl} (my API keys)` });
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('#result-status').waitFor();
    assert.equal((await page.locator('#result-status').textContent())?.trim(), '202');
    assert.equal((await page.locator('#result-body').textContent())?.trim(), 'received ok');
    assert.match((await page.locator('table.headers').textContent()) ?? '', /x-receiver\s*browser-test/);
    await shot('test-result');

    const last = got.at(-1);
    assert.ok(last, 'the receiver got the test event');
    const event = new Webhook(secret).verify(last.body, {
      'webhook-id': String(last.headers['webhook-id']),
      'webhook-timestamp': String(last.headers['webhook-timestamp']),
      'webhook-signature': String(last.headers['webhook-signature']),
    }) as { type: string };
    assert.equal(event.type, 'player.level_up');

    // a URL that is not http(s) is refused on the page, and nothing is sent
    const before = got.length;
    await page.getByLabel('To one of your webhooks').selectOption('');
    await page.getByLabel('Or to a URL').fill('ftp://example.com/x');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('alert').waitFor();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /must use https/);
    assert.equal(got.length, before);
  });
});
