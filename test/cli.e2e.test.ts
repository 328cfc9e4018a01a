import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { cliScratch, hub, serve, stop } from './helpers/cli.js';

/**
 * Drives the built `hub` CLI as real processes, the way an operator does: each run gets its own
 * temporary SQLite database through DATABASE_URL.
 */
describe('hub CLI end to end', () => {
  const { tempDb } = cliScratch('hub-e2e-');

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

    // the next start reuses that key (kept beside the database), instead of making another
    const folder = dirname(demoDb.slice('sqlite:'.length));
    assert.equal(readFileSync(join(folder, 'demo-key'), 'utf8'), `${demoKey}\n`);
    assert.equal(statSync(join(folder, 'demo-key')).mode & 0o777, 0o600, 'readable by its owner only');
    const again = await serve(demoDb, ['--demo']);
    assert.doesNotMatch(again.output(), /loading demo data/);
    assert.match(
      again.output(),
      new RegExp(`Demo key: +${demoKey} +\\(premium tier, made by an earlier start`),
    );
    assert.equal(await stop(again), 0);
    const listed = () =>
      JSON.parse(hub(demoDb, ['keys', 'list', '--json']).stdout) as { id: number; name: string }[];
    assert.deepEqual(
      listed().map((k) => k.name),
      ['demo key'],
      'one demo key after two starts',
    );

    // without the kept secret (deleted, or a PostgreSQL database) the key is named by its prefix only
    rmSync(join(folder, 'demo-key'));
    const third = await serve(demoDb, ['--demo']);
    assert.match(
      third.output(),
      new RegExp(
        `Demo key: +${demoKey.slice(0, 10)}… +\\(premium tier, made by an earlier start; its secret is not kept here`,
      ),
    );
    assert.ok(!third.output().includes(demoKey), 'the secret is not printed: only its hash is stored');
    assert.equal(await stop(third), 0);
    assert.equal(listed().length, 1);
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
  });
});
