import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

/**
 * Drives the built `hub` CLI as real processes, the way an operator does: each run gets its own
 * temporary SQLite database through DATABASE_URL.
 */
const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.js');

function newestMtime(dir: string): number {
  return Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((e) =>
      e.isDirectory() ? newestMtime(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs,
    ),
  );
}

function buildIfStale(): void {
  let built = 0;
  try {
    built = statSync(CLI).mtimeMs;
  } catch {
    built = 0;
  }
  if (built >= newestMtime(join(ROOT, 'src'))) return;
  const tsc = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  assert.equal(tsc.status, 0, `build failed:\n${tsc.stdout}${tsc.stderr}`);
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

const envFor = (dbUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  DATABASE_URL: dbUrl,
  LOG_LEVEL: 'silent',
  PORT: '0',
  HOST: '127.0.0.1',
  ...extra,
});

function hub(dbUrl: string, args: string[]): Run {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: envFor(dbUrl),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Served {
  child: ChildProcess;
  url: string;
  output: () => string;
  exit: Promise<number | null>;
}

/** Starts `hub serve …` and resolves once it prints the address it listens on. */
function serve(dbUrl: string, args: string[] = []): Promise<Served> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], { env: envFor(dbUrl) });
  let out = '';
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start:\n${out}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      // the whole banner is printed synchronously after the listening line; wait for a full line
      const match = /listening on (http:\/\/[^\s]+)\n/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        const url = match[1];
        setTimeout(() => resolve({ child, url, output: () => out, exit }), 100);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${out}`));
    });
  });
}

async function stop(served: Served): Promise<number | null> {
  served.child.kill('SIGTERM');
  return served.exit;
}

describe('hub CLI end to end', () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  const tempDb = () => {
    const dir = mkdtempSync(join(tmpdir(), 'hub-e2e-'));
    dirs.push(dir);
    return `sqlite:${join(dir, 'hub.sqlite')}`;
  };

  before(() => buildIfStale());
  after(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('migrates, seeds, creates a key, serves, authenticates, revokes and stops cleanly', async () => {
    const db = tempDb();
    const migrate = hub(db, ['migrate']);
    assert.equal(migrate.status, 0, migrate.stderr);
    assert.match(migrate.stdout, /Applied: 0001_core/);

    const seed = hub(db, ['seed', '--users', '150', '--kills', '3000', '--seed', '7']);
    assert.equal(seed.status, 0, seed.stderr);
    assert.match(seed.stdout, /^Seeded 150 users and 3,000 kills \(seed 7\) in \d+\.\d s\.\n$/);
    assert.match(
      seed.stderr,
      /seed: kills done \(3,000\)/,
      'plain progress lines when stderr is not a terminal',
    );

    const again = hub(db, ['seed', '--users', '150']);
    assert.equal(again.status, 2);
    assert.match(again.stderr, /already holds data \(table \w+\); run `hub seed --reset`/);

    const created = hub(db, ['keys', 'create', '--tier', 'free', '--name', 'e2e', '--json']);
    assert.equal(created.status, 0, created.stderr);
    const key = JSON.parse(created.stdout) as {
      id: number;
      key: string;
      tier: string;
      name: string;
      quota: number;
    };
    assert.equal(key.tier, 'free');
    assert.equal(key.name, 'e2e');
    assert.equal(key.quota, 100);
    assert.match(key.key, /^ghk_[0-9A-Za-z]{38}$/);

    const listed = hub(db, ['keys', 'list', '--json']);
    assert.equal(listed.status, 0, listed.stderr);
    const keys = JSON.parse(listed.stdout) as {
      id: number;
      name: string;
      revoked_at: string | null;
      prefix: string;
    }[];
    assert.deepEqual(
      keys.map((k) => [k.id, k.name, k.revoked_at]),
      [[key.id, 'e2e', null]],
    );
    assert.ok(!listed.stdout.includes(key.key), 'the secret is never listed');

    const served = await serve(db);
    children.push(served.child);
    assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.doesNotMatch(served.url, /:0$/, 'the real port, not the requested 0');
    assert.doesNotMatch(served.output(), /Demo key/);
    const user = `${served.url}/api-platform/v1/users/1`;
    const ok = await fetch(user, { headers: { 'x-api-key': key.key } });
    assert.equal(ok.status, 200);
    const body = (await ok.json()) as { user: { id: number; username: string } };
    assert.equal(body.user.id, 1);
    assert.equal(ok.headers.get('x-ratelimit-limit'), '100');
    const anonymous = await fetch(user);
    assert.equal(anonymous.status, 401);
    assert.match(String(anonymous.headers.get('content-type')), /^application\/problem\+json/);

    const revoked = hub(db, ['keys', 'revoke', String(key.id)]);
    assert.equal(revoked.status, 0, revoked.stderr);
    assert.equal(revoked.stdout, `Revoked key ${key.id}.\n`);
    const after = await fetch(`${served.url}/api-platform/v1/users/2`, { headers: { 'x-api-key': key.key } });
    assert.equal(after.status, 401, 'a key revoked by another process is refused at once');

    assert.equal(await stop(served), 0);
  });

  it('demo mode seeds an empty database and prints a key and the docs; plain serve seeds nothing', async () => {
    // plain serve on a database without users: the operator's key works, nothing is seeded or created
    const plainDb = tempDb();
    const operator = JSON.parse(hub(plainDb, ['keys', 'create', '--tier', 'partner', '--json']).stdout) as {
      id: number;
      key: string;
    };
    const plain = await serve(plainDb);
    children.push(plain.child);
    assert.doesNotMatch(plain.output(), /Demo key|demo data/);
    const missing = await fetch(`${plain.url}/api-platform/v1/users/1`, {
      headers: { 'x-api-key': operator.key },
    });
    assert.equal(missing.status, 404, 'no users were seeded');
    assert.equal(await stop(plain), 0);
    const keys = JSON.parse(hub(plainDb, ['keys', 'list', '--json']).stdout) as { id: number }[];
    assert.deepEqual(
      keys.map((k) => k.id),
      [operator.id],
      'plain serve creates no key',
    );

    const demoDb = tempDb();
    const demo = await serve(demoDb, ['--demo']);
    children.push(demo.child);
    const out = demo.output();
    assert.match(out, /Empty database: loading demo data/);
    assert.match(out, new RegExp(`API base: +${demo.url}/api-platform/v1\\n`));
    assert.match(out, new RegExp(`API docs: +${demo.url}/api-platform/docs\\n`));
    const demoKey = /Demo key: +(ghk_\w+)/.exec(out)?.[1];
    assert.ok(demoKey, out);
    const res = await fetch(`${demo.url}/api-platform/v1/users/500`, { headers: { 'x-api-key': demoKey } });
    assert.equal(res.status, 200, 'the default demo world has 500 users');
    const docs = await fetch(`${demo.url}/api-platform/docs`);
    assert.equal(docs.status, 200);
    assert.equal(await stop(demo), 0);
  });

  it('rejects bad input with exit code 2 and a clear message', () => {
    const db = tempDb();
    const cases: [string[], RegExp][] = [
      [['keys', 'create', '--tier', 'gold'], /--tier must be one of: free, authenticated, premium, partner/],
      [['keys', 'create'], /--tier is required/],
      [['seed', '--users', '0'], /--users must be an integer from 10 to 10000000 \(got 0\)/],
      [['seed', '--users', 'many'], /--users must be an integer/],
      [['seed', '--kills=-1'], /--kills must be an integer from 0 to 100000000 \(got -1\)/],
      [['keys', 'revoke', '999'], /no active key with id 999/],
    ];
    for (const [args, message] of cases) {
      const r = hub(db, args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    }
    const badEnv = spawnSync(process.execPath, [CLI, 'migrate'], {
      env: { ...envFor(db), DATABASE_URL: 'mysql://x' },
      encoding: 'utf8',
    });
    assert.equal(badEnv.status, 2);
    assert.match(badEnv.stderr, /DATABASE_URL/);
  });
});
