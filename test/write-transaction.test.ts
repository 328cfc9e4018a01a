import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openTestDb, type TestDb } from './helpers/db.js';

/**
 * Two processes writing one SQLite file (`hub serve` beside `hub worker`): every transaction reads
 * a row, yields, and writes it back. Through writeTransaction (BEGIN IMMEDIATE) none is lost and
 * none overwrites another; with a plain BEGIN the same load loses transactions to SQLITE_BUSY,
 * which is what the helper exists to prevent.
 */
const CONTENDER = join(import.meta.dirname, 'helpers', 'sqlite-contender.ts');
const PER_PROCESS = 40;

interface Outcome {
  done: number;
  busy: number;
}

/** Starts two contenders, lets them go at the same moment, and returns what each reports. */
async function contend(url: string, mode: 'helper' | 'deferred'): Promise<Outcome[]> {
  const children = [0, 1].map(() => {
    const child = spawn(process.execPath, ['--import', 'tsx', CONTENDER, url, mode, String(PER_PROCESS)], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const ready = new Promise<void>((resolve) =>
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.startsWith('ready\n')) resolve();
      }),
    );
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const outcome = new Promise<Outcome>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => {
        if (code !== 0) reject(new Error(`contender exited ${code}: ${err}`));
        else resolve(JSON.parse(out.trim().split('\n').pop() ?? '{}') as Outcome);
      });
    });
    return { child, ready, outcome };
  });
  await Promise.all(children.map((c) => c.ready));
  for (const c of children) c.child.stdin.end('go\n');
  return Promise.all(children.map((c) => c.outcome));
}

describe('write transactions on one SQLite file from two processes', () => {
  let t: TestDb;
  before(async () => {
    t = await openTestDb('sqlite');
  });
  after(() => t.drop());

  const reset = () =>
    t.db.kysely
      .insertInto('meta')
      .values({ key: 'contender', value: '0' })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: '0' }))
      .execute();
  const value = async () =>
    Number(
      (await t.db.kysely.selectFrom('meta').select('value').where('key', '=', 'contender').executeTakeFirst())
        ?.value,
    );

  it('writeTransaction waits for the lock: nothing lost, nothing overwritten', async () => {
    await reset();
    const runs = await contend(t.url, 'helper');
    assert.deepEqual(runs, [
      { done: PER_PROCESS, busy: 0 },
      { done: PER_PROCESS, busy: 0 },
    ]);
    assert.equal(await value(), 2 * PER_PROCESS);
  });

  it('a plain (deferred) BEGIN under the same load loses transactions to SQLITE_BUSY', async () => {
    await reset();
    const runs = await contend(t.url, 'deferred');
    const busy = runs.reduce((s, r) => s + r.busy, 0);
    assert.ok(busy > 0, `expected lost transactions, got ${JSON.stringify(runs)}`);
    assert.equal(await value(), 2 * PER_PROCESS - busy);
  });
});
