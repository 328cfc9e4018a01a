// The `typescript (browser)` column of `npm run test:clients`: the TypeScript client's conformance
// scenarios bundled (esbuild) and run by headless Chromium in a page of its own origin, calling the
// hub (through the conformance proxy) from another origin, as a web app does. The developer's setup
// goes through the portal as a developer would: a key that only the page's origin may use and a
// public OAuth app whose redirect URI is on that origin (the hub's token endpoint answers CORS for
// an app's own origins). Run in clients/typescript with HUB_CONFORMANCE_FIXTURE set, like the Node
// column; prints one JSON line per scenario.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import type { Fixture, Scenario, WebhookVector } from '../../clients/typescript/conformance/harness.js';
import type { ScenarioLine } from '../../clients/typescript/conformance/scenarios.js';
import { browserSkipReason, launchChromium } from '../../test/helpers/browser.js';

const ROOT = resolve(import.meta.dirname, '../..');
const ENTRY = join(ROOT, 'clients/typescript/conformance/browser.ts');
/** Bounds the whole page run: the slowest scenarios wait up to 20 s for a delivery or the stream. */
const RUN_TIMEOUT_MS = 240_000;

const log = (line: string) => process.stderr.write(`typescript (browser): ${line}\n`);
const readJson = <T>(file: string) => JSON.parse(readFileSync(file, 'utf8')) as T;

/** The browser entry and everything it imports, as one ES module (no node:* module in it). */
async function bundle(): Promise<string> {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error('esbuild wrote nothing');
  return output.text;
}

/** The web app's origin: a page loading the bundle, and the OAuth callback path it registers. */
async function servePage(script: string): Promise<{ origin: string; server: Server }> {
  const html =
    '<!doctype html><meta charset="utf-8"><title>conformance</title><script type="module" src="/conformance.js"></script>';
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://page').pathname;
    if (path === '/conformance.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else if (path === '/' || path === '/callback')
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    else res.writeHead(404).end();
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/**
 * The developer's setup in the portal (JSON routes, session cookie + CSRF header): a key that only
 * `origin` may use from a browser, and a public app redirecting to `origin`/callback.
 */
async function registerWebApp(
  fixture: Fixture,
  origin: string,
): Promise<{ apiKey: string; oauthApp: Fixture['oauth_app'] }> {
  const portal = (path: string) => new URL(`/api-platform/developer${path}`, fixture.hub_url);
  const { username, password } = fixture.developer;
  const signIn = await fetch(portal('/session'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (!signIn.ok) throw new Error(`portal sign-in: ${signIn.status} ${await signIn.text()}`);
  const { csrf_token: csrf } = (await signIn.json()) as { csrf_token: string };
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const call = async <T>(method: string, path: string, body: unknown): Promise<T> => {
    const res = await fetch(portal(path), {
      method,
      headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`portal ${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const created = await call<{ key: { id: number }; secret: string }>('POST', '/keys', {
    name: 'browser conformance',
  });
  await call('PUT', `/keys/${created.key.id}/origins`, { origins: [origin] });
  const redirectUri = `${origin}/callback`;
  const { app } = await call<{ app: { client_id: string } }>('POST', '/my-apps', {
    name: 'Browser conformance',
    kind: 'public',
    redirect_uris: [redirectUri],
  });
  return { apiKey: created.secret, oauthApp: { client_id: app.client_id, redirect_uri: redirectUri } };
}

async function main(): Promise<number> {
  if (browserSkipReason) throw new Error(browserSkipReason);
  const fixtureFile = process.env.HUB_CONFORMANCE_FIXTURE;
  if (!fixtureFile) throw new Error('HUB_CONFORMANCE_FIXTURE is not set: run `npm run test:clients`');
  const fixture = readJson<Fixture>(fixtureFile);
  const { scenarios } = readJson<{ scenarios: Scenario[] }>(fixture.scenarios_file);
  const { vectors } = readJson<{ vectors: WebhookVector[] }>(fixture.vectors_file);

  const started = performance.now();
  const { origin, server } = await servePage(await bundle());
  log(`bundled and serving the page at ${origin} (${Math.round(performance.now() - started)} ms)`);
  const browser = await launchChromium();
  try {
    const webApp = await registerWebApp(fixture, origin);
    const page = await browser.newPage();
    page.on('pageerror', (error) => log(`page error: ${error.message}`));
    await page.exposeFunction('reportScenario', (line: ScenarioLine) => {
      process.stdout.write(`${JSON.stringify(line)}\n`);
    });
    await page.goto(origin);
    await page.waitForFunction(() => 'runConformance' in globalThis);
    const conformance = {
      fixture: { ...fixture, api_key: webApp.apiKey, oauth_app: webApp.oauthApp },
      scenarios,
      vectors,
    };
    let timer: NodeJS.Timeout | undefined;
    const failed = await Promise.race([
      page.evaluate(
        ([c, only]) =>
          (
            globalThis as unknown as {
              runConformance: (conformance: unknown, only: string[]) => Promise<number>;
            }
          ).runConformance(c, only),
        [conformance, process.argv.slice(2)] as const,
      ),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the page did not finish within ${RUN_TIMEOUT_MS} ms`)),
          RUN_TIMEOUT_MS,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    log(`done in ${Math.round(performance.now() - started)} ms`);
    return failed === 0 ? 0 : 1;
  } finally {
    await browser.close();
    server.close();
  }
}

process.exitCode = await main();
