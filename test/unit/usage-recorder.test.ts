import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WINDOW_MS } from '../../src/http/quota.js';
import { UsageRecorder } from '../../src/modules/usage/recorder.js';
import type { UsageRepo, UsageRow } from '../../src/modules/usage/repo.js';

describe('UsageRecorder', () => {
  it('keeps every count of a failed flush and writes them with the next one', async () => {
    const hour = 100 * WINDOW_MS;
    const written: UsageRow[][] = [];
    let failNext = true;
    const repo = {
      flush: (rows: UsageRow[]) => {
        if (failNext) {
          failNext = false;
          return Promise.reject(new Error('database is locked'));
        }
        written.push(rows.map((r) => ({ ...r })));
        return Promise.resolve();
      },
    } as unknown as UsageRepo;
    const recorder = new UsageRecorder(repo, () => hour + 10);
    for (let i = 0; i < 3; i++) recorder.record(7, hour + i, 200);
    recorder.record(7, hour + 5, 429);
    await assert.rejects(recorder.flush(), /database is locked/);
    recorder.record(7, hour + 6, 200);
    await recorder.flush();
    assert.deepEqual(
      written[0]?.sort((a, b) => a.class.localeCompare(b.class)),
      [
        { key_id: 7, hour, class: '2xx', count: 4 },
        { key_id: 7, hour, class: '429', count: 1 },
      ],
    );
  });

  it('counts every request exactly once in a view read while a flush writes', async () => {
    const hour = 100 * WINDOW_MS;
    const stored: UsageRow[] = [];
    // each flush waits in the repo until the test lets it write
    const writes: (() => void)[] = [];
    let entered = () => {};
    const repo = {
      flush: async (rows: UsageRow[]) => {
        await new Promise<void>((resolve) => {
          writes.push(resolve);
          entered();
        });
        stored.push(...rows.map((r) => ({ ...r })));
      },
    } as unknown as UsageRepo;
    const inRepo = () => new Promise<void>((resolve) => (entered = resolve));
    const recorder = new UsageRecorder(repo, () => hour + 10);
    const total = (rows: UsageRow[]) => rows.reduce((n, r) => n + r.count, 0);
    const view = () => recorder.withPending([7], () => Promise.resolve(stored.map((r) => ({ ...r }))));

    for (let i = 0; i < 3; i++) recorder.record(7, hour + i, 200);
    let writing = inRepo();
    const first = recorder.flush();
    await writing; // its 3 rows are out of the buffer and not yet stored
    const during = view();
    recorder.record(7, hour + 3, 200);
    writes.shift()?.();
    await first;
    assert.equal(total(await during), 4);

    // a flush asked for while a view reads waits for the read, so nothing is counted twice
    let reading = () => {};
    const slow = recorder.withPending([7], async () => {
      const rows = stored.map((r) => ({ ...r }));
      await new Promise<void>((resolve) => (reading = resolve));
      return rows;
    });
    writing = inRepo();
    const second = recorder.flush();
    await new Promise((r) => setImmediate(r));
    assert.equal(writes.length, 0, 'the flush waits for the read');
    reading();
    assert.equal(total(await slow), 4);
    await writing;
    writes.shift()?.();
    await second;
    assert.equal(total(await view()), 4);
  });
});
