import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { DatabaseBusyError, writeTransaction } from '../src/db/write-transaction.js';
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

  /**
   * Another connection (another process, as far as SQLite can tell) holds the write lock while
   * `writeTransaction` waits for it. A timer ticking every 5 ms measures the longest the event loop
   * stood still: a busy timeout sleeping inside better-sqlite3 would stall it for seconds.
   */
  async function whileLocked<T>(holdMs: number, work: () => Promise<T>) {
    const holder = new SQLite(t.url.slice('sqlite:'.length));
    holder.exec('begin immediate');
    const released = setTimeout(() => holder.exec('commit'), holdMs);
    let last = performance.now();
    let stall = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      stall = Math.max(stall, now - last);
      last = now;
    }, 5);
    const started = performance.now();
    try {
      const outcome = await work().then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      return { outcome, waitedMs: performance.now() - started, stallMs: stall };
    } finally {
      clearInterval(ticker);
      clearTimeout(released);
      if (holder.inTransaction) holder.exec('commit');
      holder.close();
    }
  }

  it('waits for a held lock on a timer: the event loop keeps turning, the write lands after the release', async () => {
    await reset();
    const bump = () =>
      writeTransaction(t.db.kysely, (trx) =>
        trx.updateTable('meta').set({ value: '1' }).where('key', '=', 'contender').execute(),
      );
    const run = await whileLocked(400, bump);
    assert.equal(run.outcome.ok, true);
    assert.ok(run.waitedMs >= 390, `committed after ${run.waitedMs} ms, before the lock was released`);
    assert.ok(run.waitedMs < 3000, `waited ${run.waitedMs} ms after a 400 ms hold`);
    // a busy timeout would stall it 5 s; a loaded machine may pause it for a few hundred ms
    assert.ok(run.stallMs < 1000, `the event loop stood still for ${run.stallMs} ms`);
    assert.equal(await value(), 1);
  });

  it('gives up after its bound with DatabaseBusyError (503), having changed nothing', async () => {
    await reset();
    const run = await whileLocked(2000, () =>
      writeTransaction(
        t.db.kysely,
        (trx) => trx.updateTable('meta').set({ value: '9' }).where('key', '=', 'contender').execute(),
        300,
      ),
    );
    assert.equal(run.outcome.ok, false);
    assert.ok(run.outcome.error instanceof DatabaseBusyError);
    assert.ok(run.waitedMs >= 290 && run.waitedMs < 3000, `gave up after ${run.waitedMs} ms`);
    // a busy timeout would stall it 5 s; a loaded machine may pause it for a few hundred ms
    assert.ok(run.stallMs < 1000, `the event loop stood still for ${run.stallMs} ms`);
    assert.equal(await value(), 0);
  });
});
