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

  it('on a 375×812 phone: every usage column and Revoke are on screen, nothing scrolls sideways', async () => {
    const phone = await browser.newContext({
      viewport: { width: 375, height: 812 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    const mobile = await phone.newPage();
    const snap = (name: string) =>
      mobile.screenshot({ path: `${ARTIFACTS}/portal-mobile-${name}.png`, fullPage: true });
    /** The page is no wider than the screen, and no table scrolls inside its box either. */
    const assertNoSidewaysScroll = async () => {
      const widths = await mobile.evaluate<{ page: number; screen: number; wraps: number[] }>(`({
        page: document.documentElement.scrollWidth,
        screen: window.innerWidth,
        wraps: [...document.querySelectorAll('.table-wrap')].map((w) => w.scrollWidth - w.clientWidth),
      })`);
      assert.ok(
        widths.page <= widths.screen,
        `the page is ${widths.page}px wide on a ${widths.screen}px screen`,
      );
      assert.deepEqual(
        widths.wraps.filter((overflow) => overflow > 0),
        [],
        'a table scrolls sideways',
      );
    };
    const assertOnScreen = async (locator: ReturnType<Page['locator']>, what: string) => {
      assert.ok(await locator.isVisible(), `${what} is hidden`);
      const box = await locator.boundingBox();
      assert.ok(
        box && box.x >= 0 && box.x + box.width <= 375 && box.width > 0,
        `${what} is off screen: ${JSON.stringify(box)}`,
      );
    };

    await mobile.goto(`${base}/api-platform/developer/sign-up`);
    await mobile.getByLabel('Username').fill(uniqueName('Phone'));
    await mobile.getByLabel('Password').fill(GOOD_PASSWORD);
    await snap('sign-up');
    await assertNoSidewaysScroll();
    await mobile.getByRole('button', { name: 'Create account' }).click();
    await mobile.waitForURL('**/api-platform/developer/keys');
    await mobile.getByLabel('Key name').fill('Pocket bot');
    await mobile.getByRole('button', { name: 'Create key' }).click();
    await mobile.getByText('Copy this key now.').waitFor();
    const secret = await mobile.locator('#secret').inputValue();
    await assertOnScreen(mobile.getByRole('button', { name: 'Copy' }), 'Copy');
    await assertNoSidewaysScroll();
    await snap('key-created');

    // Traffic in every class the table has a column for (5xx stays 0: nothing here can cause one).
    const ok = await api(secret, `/users/${userId}`);
    await fetch(`${base}/api-platform/v1/users/${userId}`, {
      headers: { 'x-api-key': secret, 'if-none-match': ok.headers.get('etag') ?? '' },
    });
    await api(secret, '/users/2147483647');
    let status = 0;
    for (let i = 0; i < 120 && status !== 429; i++)
      status = (await api(secret, `/users/${userId}/stats`)).status;
    assert.equal(status, 429, 'the free quota ran out');

    await mobile.getByRole('link', { name: /back to my keys/ }).click();
    await assertOnScreen(mobile.getByRole('link', { name: 'Revoke Pocket bot' }), 'Revoke');
    for (const label of ['Name', 'Key', 'Tier', 'Created (UTC)', 'Last used (UTC)', 'This hour', 'Status'])
      await assertOnScreen(
        mobile.locator(`table.keys td[data-label="${label}"]`).first(),
        `the ${label} cell`,
      );
    await assertNoSidewaysScroll();
    await snap('keys');

    await mobile.getByRole('link', { name: 'Usage' }).first().click();
    await mobile.locator('table.usage').waitFor();
    const headers = ['Hour (UTC)', '2xx', '3xx', '4xx', '429', '5xx', 'Total'];
    assert.deepEqual(
      (await mobile.locator('table.usage th').allTextContents()).map((t) => t.trim()),
      headers,
    );
    for (const [i, header] of headers.entries()) {
      await assertOnScreen(mobile.locator('table.usage th').nth(i), `the ${header} column`);
    }
    const rows = mobile.locator('table.usage tbody tr');
    assert.equal(await rows.count(), 1);
    const cells = rows.first().locator('td');
    for (const [i, header] of headers.entries()) await assertOnScreen(cells.nth(i), `the ${header} cell`);
    const counts = (await cells.allTextContents()).slice(1).map(Number);
    const [c2xx, c3xx, c4xx, c429, c5xx, total] = counts;
    assert.ok(c2xx && c3xx && c4xx && c429, `every class has traffic: ${counts.join(' ')}`);
    assert.equal(c2xx + c3xx + c4xx + c429 + (c5xx ?? 0), total, 'the total adds up');
    await assertNoSidewaysScroll();
    await snap('usage');
    await phone.close();
  });
  it('on a 375×667 phone the usage chart fills the card and its labels are readable and inside it', async () => {
    const phone = await browser.newContext({
      viewport: { width: 375, height: 667 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    const mobile = await phone.newPage();
    await mobile.goto(`${base}/api-platform/developer/sign-up`);
    await mobile.getByLabel('Username').fill(uniqueName('Chart'));
    await mobile.getByLabel('Password').fill(GOOD_PASSWORD);
    await mobile.getByRole('button', { name: 'Create account' }).click();
    await mobile.waitForURL('**/api-platform/developer/keys');
    await mobile.getByLabel('Key name').fill('Chart bot');
    await mobile.getByRole('button', { name: 'Create key' }).click();
    const secret = await mobile.locator('#secret').inputValue();
    // Little traffic under a quota of 100: the axis ends at the quota, its line on the chart's top edge.
    for (let i = 0; i < 3; i++) assert.equal((await api(secret, `/users/${userId}`)).status, 200);
    await mobile.getByRole('link', { name: /back to my keys/ }).click();
    await mobile.getByRole('link', { name: 'Usage' }).first().click();
    const chart = mobile.locator('svg.chart');
    await chart.scrollIntoViewIfNeeded();
    await mobile.screenshot({ path: `${ARTIFACTS}/portal-mobile-chart.png` });

    const box = await chart.boundingBox();
    assert.ok(box, 'the chart is drawn');
    assert.ok(box.width >= 0.8 * 375, `the chart is ${box.width}px wide on a 375px screen`);
    assert.ok(box.height >= 160, `the chart is ${box.height}px high`);
    const inside = (b: { x: number; y: number; width: number; height: number } | null, what: string) => {
      assert.ok(b && b.width > 0, `${what} is drawn`);
      assert.ok(
        b.x >= box.x - 0.5 &&
          b.y >= box.y - 0.5 &&
          b.x + b.width <= box.x + box.width + 0.5 &&
          b.y + b.height <= box.y + box.height + 0.5 &&
          b.x + b.width <= 375,
        `${what} ${JSON.stringify(b)} leaves the chart ${JSON.stringify(box)}`,
      );
      // readable: as tall as 11 CSS px text at least (the text is drawn at the page's scale, not shrunk)
      assert.ok(b.height >= 11, `${what} is ${b.height}px high`);
    };
    const label = mobile.locator('svg.chart .quota-label');
    assert.match((await label.textContent()) ?? '', /quota 100\/h/);
    inside(await label.boundingBox(), 'the quota label');
    const ticks = mobile.locator('svg.chart .tick');
    assert.ok((await ticks.count()) >= 2);
    for (let i = 0; i < (await ticks.count()); i++) inside(await ticks.nth(i).boundingBox(), `tick ${i}`);
    await phone.close();
  });
});
