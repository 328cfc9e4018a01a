import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { usersCommand } from '../src/commands/users.js';
import { UsageError } from '../src/commands/args.js';
import type { SessionBody } from '../src/modules/portal/schemas.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { signIn, uniqueName } from './helpers/portal.js';

/** Runs the command function and returns what it printed. */
async function run(ctx: TestContext, argv: string[], stdin = ''): Promise<string> {
  const lines: string[] = [];
  const original = console.log;
  console.log = (...args: unknown[]) => lines.push(args.map(String).join(' '));
  try {
    await usersCommand(ctx.testDb.db, argv, () => Promise.resolve(stdin));
  } finally {
    console.log = original;
  }
  return lines.join('\n');
}

for (const dialect of testDialects()) {
  describe(`hub users CLI (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    it('creates an account from a stdin password that can sign in to the portal', async () => {
      const username = uniqueName('Op');
      const out = JSON.parse(
        await run(
          ctx,
          ['create', username, '--password-stdin', '--subscription', 'active', '--json'],
          'amber-falcon-31\n',
        ),
      ) as { id: number; tier: string; password?: string };
      assert.equal(out.tier, 'authenticated');
      assert.equal(out.password, undefined);
      const res = await signIn(ctx, username, 'amber-falcon-31');
      assert.equal(res.statusCode, 200);
      assert.deepEqual(json<SessionBody>(res).account, {
        id: out.id,
        username,
        subscription: 'active',
        partner: false,
        tier: 'authenticated',
      });
    });

    it('generates a password (printed once) when none is piped, and sets plan and partner', async () => {
      const username = uniqueName('Gen');
      const out = JSON.parse(await run(ctx, ['create', username, '--partner', '--json'])) as {
        id: number;
        password: string;
        tier: string;
      };
      assert.equal(out.tier, 'partner');
      assert.equal(out.password.length, 20);
      assert.equal((await signIn(ctx, username, out.password)).statusCode, 200);

      assert.match(await run(ctx, ['set-subscription', String(out.id), 'premium']), /subscription premium/);
      assert.match(await run(ctx, ['set-partner', String(out.id), 'false']), /partner false/);
      const row = await ctx.testDb.db.kysely
        .selectFrom('users')
        .select(['subscription', 'is_partner'])
        .where('id', '=', out.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { subscription: 'premium', is_partner: 0 });
    });

    it('set-subscription and set-partner change the quota of the account\u2019s keys on their next request', async () => {
      const out = JSON.parse(await run(ctx, ['create', uniqueName('Plan'), '--json'])) as { id: number };
      const { secret } = await ctx.makeKey({ userId: out.id, tier: null });
      const limit = async () =>
        (await ctx.get('/users/1', { 'x-api-key': secret })).headers['x-ratelimit-limit'];
      assert.equal(await limit(), '100');
      await run(ctx, ['set-subscription', String(out.id), 'active']);
      assert.equal(await limit(), '1000');
      await run(ctx, ['set-partner', String(out.id), 'true']);
      assert.equal(await limit(), '50000');
      await run(ctx, ['set-partner', String(out.id), 'false']);
      await run(ctx, ['set-subscription', String(out.id), 'premium']);
      assert.equal(await limit(), '10000');
    });

    it('rejects bad input with a usage error', async () => {
      const taken = uniqueName('Dup');
      await run(ctx, ['create', taken]);
      const bad: string[][] = [
        ['create'],
        ['create', 'ab'],
        ['create', taken],
        ['create', uniqueName(), '--subscription', 'gold'],
        ['set-subscription', '1', 'gold'],
        ['set-subscription', 'x', 'active'],
        ['set-subscription', '2147483647', 'active'],
        ['set-partner', '1', 'yes'],
        ['frobnicate'],
      ];
      for (const argv of bad) await assert.rejects(run(ctx, argv), UsageError, argv.join(' '));
      await assert.rejects(
        run(ctx, ['create', uniqueName(), '--password-stdin'], 'short'),
        /password must be 10/,
      );
    });

    it('is wired into the hub binary', () => {
      const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'users'], {
        encoding: 'utf8',
        env: {
          ...process.env,
          DATABASE_URL: ctx.testDb.url.startsWith('sqlite:') ? ctx.testDb.url : 'sqlite::memory:',
        },
      });
      assert.equal(result.status, 2);
      assert.match(result.stderr, /hub users set-subscription ID none\|active\|premium/);
    });
  });
}
