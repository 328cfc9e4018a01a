import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { GUIDES_DIR } from '../src/http/docs/guides.js';
import { renderGuide } from '../src/http/docs/markdown.js';
import { GUIDES_PATH } from '../src/http/paths.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { signUp } from './helpers/portal.js';

const GUIDES = readdirSync(GUIDES_DIR)
  .filter((f) => f.endsWith('.md'))
  .map((f) => f.slice(0, -'.md'.length));

const hrefs = (html: string) => [...html.matchAll(/<a [^>]*href="([^"]*)"/g)].map((m) => m[1] as string);
const ids = (html: string) => new Set([...html.matchAll(/ id="([^"]*)"/g)].map((m) => m[1] as string));

describe('the guides of docs/ served as pages', () => {
  let ctx: TestContext;
  const pages = new Map<string, string>();
  before(async () => {
    ctx = await createTestContext('sqlite');
  });
  after(() => ctx.close());

  /** The page at a path of the service (fetched once), or the status it answered. */
  async function fetchPage(path: string): Promise<string | number> {
    const cached = pages.get(path);
    if (cached !== undefined) return cached;
    const res = await ctx.inject({ method: 'GET', url: path, headers: { accept: 'text/html' } });
    if (res.statusCode !== 200) return res.statusCode;
    pages.set(path, res.body);
    return res.body;
  }

  /** Every link of a page that points into the service leads to a page, and to an id that page has. */
  async function assertLinksResolve(from: string, html: string, only?: (href: string) => boolean) {
    for (const href of hrefs(html).filter((h) => !/^https?:/.test(h) && (only?.(h) ?? true))) {
      assert.ok(
        href.startsWith('/') || href.startsWith('#'),
        `${from}: ${href} is not a path of the service`,
      );
      const [path = '', anchor] = href.split('#');
      const target = path === '' ? html : await fetchPage(path);
      assert.equal(typeof target, 'string', `${from}: ${href} answers ${String(target)}`);
      if (anchor !== undefined)
        assert.ok(ids(target as string).has(anchor), `${from}: ${href} has no element with that id`);
    }
  }

  it('lists every guide on the guides page', async () => {
    const res = await ctx.inject({ method: 'GET', url: GUIDES_PATH });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(String(res.headers['content-security-policy']), /default-src 'none'/);
    assert.ok(GUIDES.length >= 9);
    for (const name of GUIDES) assert.ok(res.body.includes(`href="${GUIDES_PATH}/${name}"`), name);
    await assertLinksResolve(GUIDES_PATH, res.body);
  });

  it('serves each guide with every link leading to a page and section of the service', async () => {
    for (const name of GUIDES) {
      const html = await fetchPage(`${GUIDES_PATH}/${name}`);
      assert.equal(typeof html, 'string', `${name} answers ${String(html)}`);
      assert.ok(!/<script/i.test(html as string), `${name} has no script`);
      await assertLinksResolve(name, html as string);
    }
    const operating = await fetchPage(`${GUIDES_PATH}/operating`);
    assert.match(String(operating), /<h2 id="configuration">Configuration<\/h2>/);
    assert.match(String(operating), /<a href="\/api-platform\/docs\/guides\/game-servers">/);
    // the portal's preview announces four client libraries: the guide names each one's package
    const libraries = String(await fetchPage(`${GUIDES_PATH}/client-libraries`));
    for (const name of ['@gaming-hub/client', 'gaming-hub-client', 'github.com/gaming-hub/gaming-hub-go'])
      assert.ok(libraries.includes(name), `the client libraries guide names ${name}`);
  });

  it('answers an unknown guide with a 404 problem', async () => {
    for (const name of ['nope', '..%2FREADME', 'README']) {
      const res = await ctx.inject({ method: 'GET', url: `${GUIDES_PATH}/${name}` });
      assert.equal(res.statusCode, 404, name);
      assert.equal(res.json<{ code: string }>().code, 'not_found');
    }
  });

  it('links the portal’s pages to the guide that explains them, and those links resolve', async () => {
    const session = await signUp(ctx);
    const key = await session.call('POST', '/keys', { name: 'docs' });
    const keyId = key.json<{ key: { id: number } }>().key.id;
    const guideLinks = (h: string) => h.startsWith(GUIDES_PATH);
    const seen = new Set<string>();
    for (const path of ['/keys', `/keys/${keyId}/origins`, '/apps', '/webhooks', '/webhook-test']) {
      const res = await session.call('GET', path);
      assert.equal(res.statusCode, 200, path);
      await assertLinksResolve(path, res.body, guideLinks);
      for (const href of hrefs(res.body).filter(guideLinks)) seen.add(href);
    }
    for (const expected of [
      GUIDES_PATH,
      `${GUIDES_PATH}/using-the-api`,
      `${GUIDES_PATH}/using-the-api#calling-from-a-browser-cors`,
      `${GUIDES_PATH}/oauth-apps`,
      `${GUIDES_PATH}/client-libraries`,
      `${GUIDES_PATH}/events-and-webhooks#webhooks`,
      `${GUIDES_PATH}/events-and-webhooks#trying-webhooks-on-your-own-machine`,
    ])
      assert.ok(seen.has(expected), `a portal page links ${expected}`);
  });
});

describe('the guide renderer', () => {
  const render = (markdown: string) =>
    renderGuide(markdown, { guideHref: (name) => (name === 'known' ? `/g/${name}` : undefined) }).html;

  it('gives headings GitHub’s ids and points links to guides at their pages', () => {
    const html = render(
      '# T\n## Coins: balance (`/v1`)\n## Coins: balance (`/v1`)\n[a](known.md#x) [b](other.md) [c](../src/app.ts)',
    );
    assert.match(html, /<h2 id="coins-balance-v1">/);
    assert.match(html, /<h2 id="coins-balance-v1-1">/);
    assert.match(html, /<a href="\/g\/known#x">a<\/a> b c/);
  });

  it('adds no markup of its own from the text: raw HTML is text, unsafe links and images are dropped', () => {
    const html = render(
      '<script>alert(1)</script>\n\nHi <img src=x onerror=alert(1)> [x](javascript:alert(1)) ![i](https://e.example/i.png) [ok](https://example.com/)',
    );
    assert.ok(!/<script|<img|javascript:/i.test(html), html);
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(html, /<a href="https:\/\/example.com\/" rel="noopener noreferrer">ok<\/a>/);
  });
});
