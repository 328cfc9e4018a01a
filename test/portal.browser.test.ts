import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { browserSkipReason, launchChromium } from './helpers/browser.js';
import { buildApp } from '../src/app.js';
import { openTestDb, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';
import { GOOD_PASSWORD, uniqueName } from './helpers/portal.js';

const ARTIFACTS = 'test-artifacts';
const skip = browserSkipReason;

// The whole journey of the issue, in a real browser against the real server on 127.0.0.1.
describe('developer portal in a browser', { skip }, () => {
  let testDb: TestDb;
  let app: FastifyInstance;
  let browser: Browser;
  let page: Page;
  let base: string;
  let userId: number;

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    testDb = await openTestDb('sqlite');
    userId = (await factories(testDb.db).makeUser({ username: 'NovaStrike', total_xp: 4600 })).id;
    app = await buildApp({
      db: testDb.db,
      config: { LOG_LEVEL: 'silent', CACHE_TTL_MS: 0, TRUST_PROXY: false },
      usageFlushMs: 250,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1200, height: 860 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    page = await context.newPage();
  });

  after(async () => {
    await browser.close();
    await app.close();
    await testDb.drop();
  });

  const shot = (name: string) => page.screenshot({ path: `${ARTIFACTS}/portal-${name}.png`, fullPage: true });
  const api = (secret: string, path: string) =>
    fetch(`${base}/api-platform/v1${path}`, { headers: { 'x-api-key': secret } });
  const chartTotal = async () => Number(await page.locator('svg.chart').getAttribute('data-total'));

  it('signs up, creates a key, uses it, watches usage, revokes it and signs out', async () => {
    await page.goto(`${base}/api-platform/developer`);
    assert.equal(new URL(page.url()).pathname, '/api-platform/developer/sign-in');
    await shot('sign-in');

    // a failed sign-in shows the error, without saying which half was wrong
    await page.getByLabel('Username').fill('nobody-here');
    await page.getByLabel('Password').fill('wrong-password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    assert.equal(
      (await page.getByRole('alert').textContent())?.trim(),
      'The username or password is incorrect.',
    );
    await shot('sign-in-error');

    await page.getByRole('link', { name: 'Create one' }).click();
    await page.getByLabel('Username').fill('weakling');
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    assert.match(
      (await page.getByRole('alert').textContent()) ?? '',
      /Password must be 10 to 128 characters/,
    );
    await shot('sign-up-error');
    const username = uniqueName('Browser');
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(GOOD_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/api-platform/developer/keys');
    await page.getByText('No keys yet').waitFor();
    await shot('keys-empty');

    await page.getByLabel('Key name').fill('Discord bot');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('Copy this key now.').waitFor();
    assert.match(page.url(), /\/api-platform\/developer\/keys\/created\?flash=[\w-]{22}$/);
    const secret = await page.locator('#secret').inputValue();
    assert.match(secret, /^ghk_[0-9A-Za-z]{38}$/);
    assert.ok(!page.url().includes(secret), 'the secret is not in the URL');
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), secret);
    await shot('key-created');

    // Reloading the page (post/redirect/get) creates nothing and no longer shows the secret.
    await page.reload();
    await page.getByRole('heading', { name: 'Key already shown' }).waitFor();
    assert.ok(!(await page.content()).includes(secret), 'the secret is shown once');
    await shot('key-created-reloaded');
    await page.getByRole('link', { name: 'Back to my keys' }).click();
    assert.equal(await page.getByRole('link', { name: /^Revoke / }).count(), 1, 'one key, not two');
    assert.ok(!(await page.content()).includes(secret), 'the secret is never shown again');
    await page.getByRole('link', { name: 'Usage' }).click();
    assert.equal(await chartTotal(), 0);

    const first = await api(secret, `/users/${userId}`);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('x-ratelimit-limit'), '100');
    assert.equal((await api(secret, `/users/${userId}/stats`)).status, 200);
    assert.equal((await api(secret, `/users/${userId}`)).status, 200);
    assert.equal((await api(secret, '/users/2147483647')).status, 404);

    await page.reload();
    assert.equal(await chartTotal(), 4, 'the chart moved');
    assert.equal(await page.locator('svg.chart g.bar').count(), 1);
    assert.match((await page.locator('#totals').textContent()) ?? '', /4\s*requests, last 48 h/);
    await shot('usage');

    await page
      .getByRole('link', { name: /My keys/ })
      .first()
      .click();
    await page.getByRole('link', { name: 'Revoke Discord bot' }).click();
    await page.getByRole('heading', { name: /Revoke “Discord bot”\?/ }).waitFor();
    await shot('revoke-confirm');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('The key “Discord bot” was revoked.').waitFor();
    await page.locator('.badge.revoked').waitFor();
    await shot('keys-revoked');

    const afterRevoke = await api(secret, `/users/${userId}`);
    assert.equal(afterRevoke.status, 401);

    await page.getByRole('button', { name: /Sign out/ }).click();
    await page.waitForURL('**/api-platform/developer/sign-in');
    await page.goto(`${base}/api-platform/developer/keys`);
    assert.equal(new URL(page.url()).pathname, '/api-platform/developer/sign-in');
  });
});
