import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserSkipReason, launchChromium } from './helpers/browser.js';
import { createTestContext, type TestContext } from './helpers/context.js';

describe('interactive API reference in a real browser', () => {
  let ctx: TestContext;
  let browser: Browser | undefined;
  let origin: string;

  before(async () => {
    ctx = await createTestContext('sqlite');
    origin = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    if (!browserSkipReason) browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await ctx.close();
  });

  it('loads with no request to any other host and renders the operations', async (t) => {
    if (!browser) return t.skip(String(browserSkipReason));
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    const requests: string[] = [];
    const foreign: string[] = [];
    const refused: string[] = [];
    const pageErrors: string[] = [];
    // Anything bound elsewhere is recorded and cut off, so the page is tested as if offline even on
    // a machine that has internet access.
    await context.route(
      (url) => url.origin !== origin,
      async (route) => {
        foreign.push(route.request().url());
        await route.abort();
      },
    );
    page.on('request', (request) => requests.push(request.url()));
    // A request the Content-Security-Policy blocks never reaches the network; Chromium logs it.
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));

    const response = await page.goto(`${origin}/api-platform/docs`, { waitUntil: 'networkidle' });
    assert.equal(response?.status(), 200);
    assert.equal(page.url(), `${origin}/api-platform/docs/`);
    await page.getByText('Get a public user profile').first().waitFor({ state: 'visible', timeout: 15_000 });
    assert.ok(await page.getByText('Get a user\u2019s stats').first().isVisible());
    assert.ok(await page.getByText('Gaming Hub API').first().isVisible());

    // Open an operation: its generated 200 example is shown.
    await page.getByText('Get a public user profile').first().click();
    await page.getByText('"NovaStrike"').first().waitFor({ state: 'visible', timeout: 10_000 });
    mkdirSync('test-artifacts', { recursive: true });
    await page.screenshot({ path: 'test-artifacts/docs.png' });

    // The built-in client sends its request to this service too.
    await page
      .getByRole('button', { name: /test request/i })
      .first()
      .click();
    const sent = page.waitForRequest((r) => r.url() === `${origin}/api-platform/v1/users/1`, {
      timeout: 10_000,
    });
    await page.getByRole('button', { name: /^send/i }).first().click();
    await sent;
    await page.waitForLoadState('networkidle');
    await context.close();

    for (const path of ['/api-platform/docs/js/scalar.js', '/api-platform/v1/openapi.json'])
      assert.ok(requests.includes(`${origin}${path}`), `the page did not load ${path}`);
    assert.deepEqual(foreign, [], 'requests to other hosts');
    assert.deepEqual(
      requests.filter((url) => new URL(url).origin !== origin),
      [],
    );
    assert.deepEqual(refused, [], 'requests refused by the Content-Security-Policy');
    assert.deepEqual(pageErrors, []);
  });
});
