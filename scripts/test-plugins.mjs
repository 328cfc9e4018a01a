#!/usr/bin/env node
// `npm run test:plugins [-- language ...]`: builds the service, seeds a hub (SQLite, temp dir),
// registers one server per scenario of plugin-sdk/scenarios.json and language with the CLI, starts
// `hub serve` on a fixed port (so a scenario can stop and restart it), and runs each SDK of
// plugin-sdk/languages.json: its own tests, its scenarios (one JSON line each) and its reference
// plugin. A control server does what a plugin cannot (plugin-sdk/README.md). Prints the matrix
// scenario x language; fails when a scenario fails or is missing (a scenario marked `skip` in
// scenarios.json is reported as skipped, with its reason).
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { cli, cliJson, env, serve } from './clients/hub.mjs';
import { buildService, logger, run, scenarioResults, selectLanguages } from './matrix.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const SDKS = join(ROOT, 'plugin-sdk');
const { scenarios } = JSON.parse(readFileSync(join(SDKS, 'scenarios.json'), 'utf8'));
const languages = selectLanguages(join(SDKS, 'languages.json'), 'SDK');
const log = logger('test:plugins');
buildService(ROOT, 'PLUGINS_SKIP_BUILD', log);

const dir = mkdtempSync(join(tmpdir(), 'hub-plugins-'));
const dbFile = join(dir, 'hub.sqlite');

const freePort = () =>
  new Promise((done, fail) => {
    const s = createServer();
    s.on('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => done(port));
    });
  });

/** `hub serve` on the fixed port; stop() waits for its exit; start() again reuses the port. */
function hubProcess(port) {
  let current;
  return {
    url: `http://127.0.0.1:${port}`,
    /** the output of the latest start (what a failed run prints) */
    output: () => current?.output() ?? '',
    running: () => current?.running() ?? false,
    async start() {
      current = await serve(dir, {
        PORT: String(port),
        // offline_command_expires waits out the TTL; heartbeat_online_offline a poll round after the silence
        PLUGIN_COMMAND_TTL: '5',
        POLL_INTERVAL_MS: '1000',
      });
    },
    stop: () => current?.stop() ?? Promise.resolve(),
  };
}

/** The control server of plugin-sdk/README.md. */
function startControl(hub, owner) {
  const send = (res, status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://control');
      if (req.method === 'POST' && url.pathname === '/hub/stop') {
        await hub.stop();
        return send(res, 200, { running: false });
      }
      if (req.method === 'POST' && url.pathname === '/hub/start') {
        if (!hub.running()) await hub.start();
        return send(res, 200, { running: true });
      }
      if (req.method === 'GET' && url.pathname === '/count/kills') {
        const db = new Database(dbFile, { readonly: true, fileMustExist: true });
        try {
          const row = db
            .prepare('select count(*) as count from kills where server_id = ?')
            .get(Number(url.searchParams.get('server_id')));
          return send(res, 200, { count: row.count });
        } finally {
          db.close();
        }
      }
      const remove = /^\/servers\/(\d+)\/remove$/.exec(url.pathname);
      if (req.method === 'POST' && remove) {
        cli(dir, ['servers', 'remove', remove[1]]);
        return send(res, 200, { removed: Number(remove[1]) });
      }
      // the /v1 calls a plugin cannot make: as the servers' owner, with an OAuth token
      const hubCall = async (method, path, body) => {
        const res = await fetch(new URL(path, hub.url), {
          method,
          headers: {
            authorization: `Bearer ${owner.token}`,
            ...(body === undefined
              ? {}
              : { 'content-type': 'application/json', 'idempotency-key': randomUUID() }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await res.text();
        let parsed = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON: passed on as text
        }
        return { status: res.status, body: parsed };
      };
      if (req.method === 'POST' && url.pathname === '/command') {
        const body = JSON.parse((await readBody(req)) || '{}');
        return send(
          res,
          200,
          await hubCall('POST', `/v1/servers/${Number(body.server_id)}/command`, {
            command: body.command,
            ...(body.wait_ms === undefined ? {} : { wait_ms: body.wait_ms }),
          }),
        );
      }
      const commandRead = /^\/command\/(\d+)\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && commandRead)
        return send(
          res,
          200,
          await hubCall('GET', `/v1/servers/${commandRead[1]}/commands/${commandRead[2]}`),
        );
      if (req.method === 'POST' && url.pathname === '/link-code')
        return send(res, 200, await hubCall('POST', '/v1/me/link-codes', {}));
      if (req.method === 'GET' && url.pathname.startsWith('/v1/'))
        return send(res, 200, await hubCall('GET', url.pathname + url.search));
      return send(res, 404, { error: `no control route ${req.method} ${url.pathname}` });
    } catch (err) {
      return send(res, 500, { error: String(err?.stack ?? err) });
    }
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

const readBody = (req) =>
  new Promise((done, fail) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => done(text));
    req.on('error', fail);
  });

log('seeding the hub');
cli(dir, ['migrate']);
cli(dir, ['seed', '--users', '10', '--kills', '50', '--seed', '26']);
const ownerUser = cliJson(
  dir,
  ['users', 'create', 'plugin_owner', '--password-stdin'],
  'plugin-owner-violet-harbor\n',
);
const ownerApp = cliJson(dir, [
  'apps',
  'create',
  '--owner',
  String(ownerUser.id),
  '--name',
  'Plugin scenarios',
  '--redirect-uri',
  'http://127.0.0.1:9/callback',
  '--public',
]);
const OWNER_SCOPES = 'identify servers:read servers:command stats:read identities:write';
const owner = {
  id: ownerUser.id,
  token: (() => {
    const minted = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        join(ROOT, 'scripts/plugins/user-token.ts'),
        `sqlite:${dbFile}`,
        String(ownerUser.id),
        ownerApp.client_id,
        OWNER_SCOPES,
      ],
      { cwd: ROOT, env: env(dir), encoding: 'utf8' },
    );
    if (minted.status !== 0) throw new Error(`minting the owner's token failed: ${minted.stderr}`);
    return minted.stdout.trim().split('\n').pop();
  })(),
};
/** the servers whose scenarios send commands take them on the plugin channel */
const PLUGIN_CHANNEL = new Set(['commands', 'expiry']);
const results = new Map();
let hub;
let control;
let failedRun = false;
try {
  const servers = new Map();
  let port = 28000;
  for (const language of languages) {
    const mine = {};
    for (const name of [...new Set(scenarios.map((s) => s.server)), 'reference']) {
      const server = cliJson(dir, [
        'servers',
        'add',
        '--name',
        `Plugin ${language.name} ${name}`,
        '--game',
        'rust',
        '--ip',
        '127.0.0.1',
        '--port',
        String(port++),
        '--owner',
        String(owner.id),
      ]);
      mine[name] = { id: server.id, token: server.token };
      if (PLUGIN_CHANNEL.has(name)) cli(dir, ['servers', 'set-channel', String(server.id), 'plugin']);
    }
    servers.set(language.name, mine);
  }
  hub = hubProcess(await freePort());
  await hub.start();
  control = await startControl(hub, owner);
  for (const language of languages) {
    const work = join(dir, language.name);
    mkdirSync(work, { recursive: true });
    const fixtureFile = join(work, 'fixture.json');
    const fixture = {
      hub_url: hub.url,
      control_url: `http://127.0.0.1:${control.address().port}`,
      scenarios_file: join(SDKS, 'scenarios.json'),
      vectors_dir: join(SDKS, 'vectors'),
      work_dir: work,
      servers: servers.get(language.name),
    };
    writeFileSync(fixtureFile, `${JSON.stringify(fixture, null, 2)}\n`);
    const options = {
      cwd: join(ROOT, language.dir),
      env: { ...process.env, HUB_PLUGIN_FIXTURE: fixtureFile },
    };
    const outcome = { tests: true, reference: true, scenarios: new Map() };
    // PLUGINS_SKIP_TESTS: only the scenarios and the reference plugins (CI's second pass: the SDKs'
    // own gates read no date of the hub's and already ran in the first)
    if (language.tests && !process.env.PLUGINS_SKIP_TESTS) {
      log(`${language.name}: its own tests`);
      outcome.tests =
        (await run(language.tests[0], language.tests.slice(1), { ...options, echo: true })).code === 0;
    }
    log(`${language.name}: the scenarios`);
    if (!hub.running()) await hub.start();
    const scenarioRun = await run(language.scenarios[0], language.scenarios.slice(1), options);
    outcome.scenarios = scenarioResults(scenarioRun.stdout);
    if (!hub.running()) await hub.start();
    log(`${language.name}: the reference plugin`);
    outcome.reference =
      (await run(language.reference[0], language.reference.slice(1), { ...options, echo: true })).code === 0;
    results.set(language.name, outcome);
  }
} catch (err) {
  failedRun = true;
  console.error(err);
  if (hub) console.error(hub.output().slice(-4000));
} finally {
  control?.close();
  await hub?.stop();
  rmSync(dir, { recursive: true, force: true });
}

const names = languages.map((l) => l.name);
const width = Math.max(...scenarios.map((s) => s.name.length), 'reference plugin'.length) + 2;
const cell = (text) => text.padEnd(Math.max(12, ...names.map((n) => n.length + 2)));
const lines = [`${'scenario'.padEnd(width)}${names.map(cell).join('')}`];
let failed = failedRun ? 1 : 0;
const notes = [];
const row = (label, of) => lines.push(`${label.padEnd(width)}${names.map((n) => cell(of(n))).join('')}`);
row('own tests', (n) => (results.get(n)?.tests === false ? (failed++, 'FAIL') : 'pass'));
for (const scenario of scenarios) {
  row(scenario.name, (n) => {
    const result = results.get(n)?.scenarios.get(scenario.name);
    if (!result) return (failed++, 'MISSING');
    if (result.status === 'skip') {
      notes.push(`${n} ${scenario.name}: skipped: ${result.reason ?? scenario.skip}`);
      return 'skip';
    }
    if (result.status === 'pass' && scenario.skip) {
      failed++;
      notes.push(`${n} ${scenario.name}: passes but scenarios.json still marks it skipped: remove the skip`);
      return 'PASS?';
    }
    if (result.status !== 'pass') {
      failed++;
      notes.push(`${n} ${scenario.name}: ${result.error ?? result.status}`);
      return 'FAIL';
    }
    return 'pass';
  });
}
row('reference plugin', (n) => (results.get(n)?.reference ? 'pass' : (failed++, 'FAIL')));
console.log(lines.join('\n'));
for (const note of notes) console.log(`  ${note}`);
console.log(failed === 0 ? `plugin SDKs pass: ${names.join(', ')}` : `${failed} failed or missing`);
process.exit(failed === 0 ? 0 : 1);
