import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { AuditReport } from '../src/modules/economy/repo.js';
import { buildIfStale, hub as runHub, spawnChild } from './helpers/cli.js';
import { databaseUrlOf, openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';

/**
 * The operator's economy commands as real processes (`hub economy grant`, `hub economy audit`),
 * and a crash: a process sending coins is killed with SIGKILL mid-flight; every transfer is then
 * wholly in the ledger or not at all, and the audit passes.
 */
const ROOT = join(import.meta.dirname, '..');
const CHILD = join(ROOT, 'test', 'helpers', 'economy-crash-child.ts');

for (const dialect of testDialects()) {
  describe(`hub economy CLI and crash (${dialect})`, () => {
    let testDb: TestDb;
    let url: string;
    const users: number[] = [];
    const hub = (...args: string[]) => runHub(url, ['economy', ...args]);

    before(async () => {
      buildIfStale();
      testDb = await openTestDb(dialect);
      url = databaseUrlOf(testDb);
      const made = factories(testDb.db);
      for (let i = 0; i < 6; i++) users.push((await made.makeUser()).id);
    });
    after(() => testDb.drop());

    it('grants coins to a user, refusing unknown users and bad amounts', () => {
      for (const user of users) {
        const run = hub('grant', String(user), '500', '--reason', 'launch gift', '--json');
        assert.equal(run.status, 0, run.stderr);
        assert.equal((JSON.parse(run.stdout) as { balance: number }).balance, 500);
      }
      const unknown = hub('grant', '999999', '5', '--reason', 'x');
      assert.equal(unknown.status, 2, unknown.stderr);
      assert.equal(hub('grant', String(users[0]), '0', '--reason', 'x').status, 2);
      assert.equal(hub('grant', String(users[0]), '1.5', '--reason', 'x').status, 2);
      const noReason = hub('grant', String(users[0]), '5');
      assert.equal(noReason.status, 2);
      assert.match(noReason.stderr, /--reason/);
    });

    it(
      'survives SIGKILL in the middle of transfers: all of a transfer or none, audit passes',
      { timeout: 120_000 },
      async () => {
        // spawnChild: killed after the file's last test even when this one fails or times out
        const child = spawnChild(process.execPath, ['--import', 'tsx', CHILD], {
          cwd: ROOT,
          env: { ...process.env, DATABASE_URL: url, USERS: JSON.stringify(users) },
        });
        let committed = 0;
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        await new Promise<void>((resolve, reject) => {
          child.stdout.on('data', (d: Buffer) => {
            committed += d
              .toString()
              .split('\n')
              .filter((l) => l.startsWith('ok')).length;
            if (committed >= 150) resolve();
          });
          child.on('exit', () => reject(new Error(`the sender exited on its own: ${stderr}`)));
        });
        child.kill('SIGKILL');
        await new Promise((resolve) => child.once('close', resolve));

        const run = hub('audit', '--json');
        assert.equal(run.status, 0, run.stdout + run.stderr);
        const report = JSON.parse(run.stdout) as AuditReport;
        assert.equal(report.ok, true);
        assert.equal(report.entries, report.transactions * 2);
        const transfers = await testDb.db.kysely
          .selectFrom('economy_transactions')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('kind', '=', 'transfer')
          .executeTakeFirstOrThrow();
        assert.ok(transfers.n >= committed, `${transfers.n} transfers written, ${committed} reported`);
        const total = await testDb.db.kysely
          .selectFrom('economy_accounts')
          .select((eb) => eb.fn.sum<number>('balance').as('n'))
          .where('user_id', 'is not', null)
          .executeTakeFirstOrThrow();
        assert.equal(total.n, users.length * 500);
      },
    );

    it('audit exits 1 and names the account when a balance is not its entries', async () => {
      await sql`update economy_accounts set balance = balance + 3 where user_id = ${users[0]}`.execute(
        testDb.db.kysely,
      );
      const run = hub('audit');
      assert.equal(run.status, 1, run.stdout + run.stderr);
      assert.match(run.stdout, /MISMATCH account \d+: balance \d+, entries sum to \d+/);
      assert.match(run.stdout, /Ledger NOT sound/);
      await sql`update economy_accounts set balance = balance - 3 where user_id = ${users[0]}`.execute(
        testDb.db.kysely,
      );
      assert.equal(hub('audit').status, 0);
    });
  });
}
