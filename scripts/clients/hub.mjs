// A seeded hub for the client conformance run: a template database seeded once (migrate, demo
// data with a fixed seed, the users, key and apps the scenarios need), copied for each language so
// every language starts from the same state, and `hub serve` on a free port.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/cli.js');
export const REDIRECT_URI = 'http://127.0.0.1:9/callback';
/** Fixed so the scenarios can sign in as them. */
export const PASSWORD = 'conformance-violet-harbor';

/** The environment of a CLI run or `hub serve` on the SQLite database in `dir` (test-plugins.mjs too). */
export const env = (dir, extra = {}) => ({
  ...process.env,
  DATABASE_URL: `sqlite:${join(dir, 'hub.sqlite')}`,
  LOG_LEVEL: 'warn',
  REDIS_URL: '',
  ...extra,
});

/** `hub <args>` on the database in `dir`; its stdout, or an error with its output. */
export function cli(dir, args, input) {
  const run = spawnSync(process.execPath, [CLI, ...args], { env: env(dir), input, encoding: 'utf8' });
  if (run.status !== 0)
    throw new Error(`hub ${args.join(' ')} failed (${run.status}): ${run.stderr}${run.stdout}`);
  return run.stdout;
}
/** `hub <args> --json` on the database in `dir`: the JSON of its last line. */
export const cliJson = (dir, args, input) =>
  JSON.parse(
    cli(dir, [...args, '--json'], input)
      .trim()
      .split('\n')
      .pop(),
  );

/** Seeds the template database once; what it made goes into the fixture the languages read. */
export function prepareTemplate() {
  const dir = mkdtempSync(join(tmpdir(), 'hub-conformance-template-'));
  cli(dir, ['migrate']);
  cli(dir, ['seed', '--users', '40', '--kills', '600', '--seed', '25']);
  const users = {};
  for (const name of ['conf_alice', 'conf_bob']) {
    const user = cliJson(dir, ['users', 'create', name, '--password-stdin'], `${PASSWORD}\n`);
    users[name.slice(5)] = { id: user.id, username: name, password: PASSWORD };
  }
  // a partner's portal account: the browser run creates its key (held to the page's origin) and its
  // app there, as a web developer would, with the partner quota the scenarios need
  const dev = cliJson(dir, ['users', 'create', 'conf_dev', '--partner', '--password-stdin'], `${PASSWORD}\n`);
  const key = cliJson(dir, ['keys', 'create', '--tier', 'partner', '--name', 'conformance']);
  const app = cliJson(dir, [
    'apps',
    'create',
    '--owner',
    String(users.alice.id),
    '--name',
    'Conformance',
    '--redirect-uri',
    REDIRECT_URI,
    '--public',
  ]);
  cli(dir, ['economy', 'grant', String(users.alice.id), '100000', '--reason', 'conformance']);
  // public events (server.added) for the pull route's paging: several pages of 5
  for (let i = 1; i <= 12; i++)
    cli(dir, [
      'servers',
      'add',
      '--name',
      `Conformance ${i}`,
      '--game',
      'cs2',
      '--ip',
      '127.0.0.1',
      '--port',
      String(27100 + i),
    ]);
  return {
    dir,
    fixture: {
      api_key: key.key,
      api_key_id: key.id,
      users,
      developer: { id: dev.id, username: 'conf_dev', password: PASSWORD },
      oauth_app: { client_id: app.client_id, redirect_uri: REDIRECT_URI },
    },
  };
}

/** `hub serve` on a copy of the template, on a free port; resolves once it listens. */
export async function startHub(templateDir) {
  const dir = mkdtempSync(join(tmpdir(), 'hub-conformance-'));
  cpSync(templateDir, dir, { recursive: true });
  const hub = await serve(dir, {
    PORT: '0',
    WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
    EVENTS_STREAM_POLL_MS: '100',
  });
  return { ...hub, dir };
}

/**
 * `hub serve` on the database in `dir` (127.0.0.1, no UDP ingest, `extra` in its environment);
 * resolves once it listens with its `url`, `output()`, `running()` and `stop()` (which waits for the exit).
 */
export async function serve(dir, extra = {}) {
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: env(dir, { HOST: '127.0.0.1', INGEST_UDP_PORT: '0', ...extra }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`hub serve did not start:\n${output}`)), 120_000);
    const onData = (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`hub serve exited (${code}):\n${output}`));
    });
  });
  return {
    url,
    output: () => output,
    running: () => child.exitCode === null,
    stop: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}
