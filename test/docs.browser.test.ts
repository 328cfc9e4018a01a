import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkipReason, launchChromium } from './helpers/browser.js';
import { createTestContext, type TestContext } from './helpers/context.js';

interface Violation {
  directive: string;
  blocked: string;
  source: string;
}

/** A response as the browser received it; `bytes` is the body as sent (compressed). */
interface Received {
  path: string;
  status: number;
  encoding: string | undefined;
  bytes: number;
}

const DOCS = '/api-platform/docs';
const ASSET = /^\/api-platform\/docs\/assets\/\w+\.[\w-]{16}\.js$/;

describe('interactive API reference in a real browser', () => {
  let ctx: TestContext;
  let browser: Browser | undefined;
  let origin: string;
  /** path and status of every request that reached the server */
  const served: [string, number][] = [];

  before(async () => {
    ctx = await createTestContext('sqlite');
    origin = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    ctx.app.server.on('request', (request: { url?: string }, response: ServerResponse) =>
      response.on('finish', () =>
        served.push([new URL(request.url ?? '/', origin).pathname, response.statusCode]),
      ),
    );
    if (!browserSkipReason) browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await ctx.close();
  });

  /** Every policy violation the page sees, including those Chromium does not log (a refused eval). */
  async function watchViolations(page: Page): Promise<() => Promise<Violation[]>> {
    // Page-side code as text: this project compiles without the DOM types.
    await page.addInitScript(`
      window.cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push({
        directive: e.effectiveDirective, blocked: e.blockedURI || 'inline', source: e.sourceFile,
      }));`);
    return () => page.evaluate<Violation[]>('window.cspViolations');
  }

  // zod, inside Scalar's bundle, probes `new Function('')` (in a try) to decide whether to compile its
  // validators; the policy refuses eval and zod interprets them instead. That refusal is the policy
  // working; anything else (an inline script or style file, another host) fails the test.
  function assertOnlyTheEvalProbe(seen: Violation[]): void {
    const others = seen.filter(
      (v) => !(v.directive === 'script-src' && v.blocked === 'eval' && v.source.includes('/scalar.')),
    );
    assert.deepEqual(others, [], 'Content-Security-Policy violations');
    assert.ok(seen.length - others.length <= 1, JSON.stringify(seen));
  }

  // The browser asks for the icon when it likes; it is not part of the page.
  const drainServed = () => served.splice(0).filter(([path]) => path !== '/favicon.ico');

  // Scalar reads and validates the whole document first: seconds on a busy two-core machine.
  const operationShown = (page: Page) =>
    page.getByText('Get a public user profile').first().waitFor({ state: 'visible', timeout: 60_000 });

  it('works offline under a policy without inline script: renders, shows examples, sends requests', async (t) => {
    if (!browser) return t.skip(String(browserSkipReason));
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    const requests: string[] = [];
    const foreign: string[] = [];
    const refused: string[] = [];
    const pageErrors: string[] = [];
    // Anything bound elsewhere is recorded and cut off, so the page is tested as if offline even on
    // a machine that has internet access. (Intercepting turns the browser cache off: see below.)
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
    const violations = await watchViolations(page);

    const response = await page.goto(`${origin}${DOCS}`, { waitUntil: 'networkidle' });
    assert.equal(response?.status(), 200);
    assert.equal(page.url(), `${origin}${DOCS}/`);
    await operationShown(page);
    // waited for, not read at once: the reference renders its parts one after another, and at a load
    // of 4 the title was not yet shown when the first operation was (a CI run failed on that)
    for (const text of ['Get a user\u2019s stats', 'Gaming Hub API'])
      await page.getByText(text).first().waitFor({ state: 'visible', timeout: 30_000 });

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
    const tried = page.waitForResponse(`${origin}/api-platform/v1/users/1`, { timeout: 10_000 });
    await page.getByRole('button', { name: /^send/i }).first().click();
    await tried;
    await page.waitForLoadState('networkidle');
    assertOnlyTheEvalProbe(await violations());
    await context.close();

    assert.ok(requests.includes(`${origin}/api-platform/v1/openapi.json`), 'the document was not loaded');
    const scripts = requests.filter((url) => url.endsWith('.js')).map((url) => new URL(url).pathname);
    assert.equal(scripts.length, 2, scripts.join(', '));
    for (const script of scripts) assert.match(script, ASSET);
    assert.deepEqual(foreign, [], 'requests to other hosts');
    assert.deepEqual(
      requests.filter((url) => new URL(url).origin !== origin),
      [],
    );
    assert.deepEqual(refused, [], 'requests refused by the Content-Security-Policy');
    assert.deepEqual(pageErrors, []);
  });

  // Page-side code as text: this project compiles without the DOM types. Each list of the sidebar
  // (the top level, a group's tags, a tag's operations) as the labels of its own entries.
  const SIDEBAR_LISTS = `Array.from(document.querySelectorAll('aside ul')).map((ul) =>
    Array.from(ul.children).filter((li) => li.tagName === 'LI').map((li) =>
      (li.querySelector('[class*="button-label"]')?.textContent ?? '').trim()))`;

  it('reads the document without a console warning or error, and lists each sidebar section once', async (t) => {
    if (!browser) return t.skip(String(browserSkipReason));
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    // Scalar validates the document it loads and warns ("document validation errors") about every
    // schema it cannot read; any warning or error at all fails, so none hides behind another.
    const complaints: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'warning' || message.type() === 'error')
        complaints.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => complaints.push(`pageerror: ${error.message}`));
    await page.goto(`${origin}${DOCS}/`, { waitUntil: 'networkidle' });
    await operationShown(page);
    const lists = await page.evaluate<string[][]>(SIDEBAR_LISTS);
    await context.close();

    assert.deepEqual(complaints, []);
    const top = lists.find((labels) => labels.includes('Models')) ?? [];
    // The endpoints' tag and the requests the hub sends (the document's `webhooks`), once each.
    assert.deepEqual(
      top.filter((label) => /webhook/i.test(label)),
      ['v1 Webhook endpoints', 'Webhooks'],
    );
    for (const labels of lists)
      assert.deepEqual(
        labels.filter((label, i) => label !== '' && labels.indexOf(label) !== i),
        [],
        `a sidebar list names a section twice: ${labels.join(' | ')}`,
      );
  });

  it('gets the bundle compressed once; a repeat visit costs two 304s and no script download', async (t) => {
    if (!browser) return t.skip(String(browserSkipReason));
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    const violations = await watchViolations(page);
    const received: Promise<Received>[] = [];
    page.on('response', (response) =>
      received.push(
        response
          .request()
          .sizes()
          .then((sizes) => ({
            path: new URL(response.url()).pathname,
            status: response.status(),
            encoding: response.headers()['content-encoding'],
            bytes: sizes.responseBodySize,
          })),
      ),
    );

    served.splice(0);
    await page.goto(`${origin}${DOCS}/`, { waitUntil: 'networkidle' });
    await operationShown(page);
    const firstVisit = await Promise.all(received.splice(0));
    assert.deepEqual(
      drainServed().map(([path]) => path.replace(/\.[\w-]{16}\.js$/, '.js')),
      [
        `${DOCS}/`,
        `${DOCS}/assets/scalar.js`,
        `${DOCS}/assets/reference.js`,
        '/api-platform/v1/openapi.json',
      ],
    );
    const bundle = firstVisit.find((r) => r.path.includes('/scalar.'));
    assert.equal(bundle?.encoding, 'br', JSON.stringify(bundle));
    assert.ok(bundle.bytes < 1_500_000, `the bundle took ${bundle.bytes} bytes`);

    await page.goto(`${origin}${DOCS}/`, { waitUntil: 'networkidle' });
    await operationShown(page);
    assertOnlyTheEvalProbe(await violations());
    const repeatVisit = await Promise.all(received.splice(0));
    await context.close();
    // The page and the document are revalidated by ETag; the hashed scripts are not even requested.
    assert.deepEqual(drainServed(), [
      [`${DOCS}/`, 304],
      ['/api-platform/v1/openapi.json', 304],
    ]);
    const total = (list: Received[]) => list.reduce((sum, r) => sum + Math.max(0, r.bytes), 0);
    process.stdout.write(
      `# docs visit, body bytes received: first ${total(firstVisit)}, repeat ${total(repeatVisit)}\n`,
    );
  });
});
