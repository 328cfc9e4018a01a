import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { groupCommit } from '../../src/db/group-commit.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 2));

describe('groupCommit', () => {
  it('a lone write is written alone, without waiting for a timer', async () => {
    const batches: number[][] = [];
    const write = groupCommit<number, string>({
      maxBatch: 10,
      write: async (take) => {
        const items = take();
        batches.push(items);
        return items.map((n) => `#${n}`);
      },
    });
    const started = performance.now();
    assert.equal(await write(7), '#7');
    assert.equal(await write(8), '#8');
    assert.deepEqual(batches, [[7], [8]]);
    assert.ok(performance.now() - started < 50, 'two writes, two turns of the event loop');
  });

  it('writes asked for in the same turn of the event loop go in one transaction', async () => {
    const batches: number[][] = [];
    const write = groupCommit<number, number>({
      maxBatch: 64,
      write: async (take) => {
        const items = take();
        batches.push(items);
        return items;
      },
    });
    assert.deepEqual(await Promise.all([1, 2, 3, 4, 5].map(write)), [1, 2, 3, 4, 5]);
    assert.deepEqual(batches, [[1, 2, 3, 4, 5]]);
  });

  it('takes what queued while its transaction waited to begin, and what queued meanwhile goes next', async () => {
    const batches: number[][] = [];
    const write = groupCommit<number, string>({
      maxBatch: 10,
      write: async (take) => {
        await tick(); // BEGIN: the database is busy with the rest of the process's queries
        const items = take();
        batches.push(items);
        await tick();
        return items.map((n) => `#${n}`);
      },
    });
    const first = Array.from({ length: 4 }, (_, i) => write(i));
    await new Promise((resolve) => setImmediate(resolve)); // the first transaction is beginning
    const later = Array.from({ length: 22 }, (_, i) => write(4 + i));
    assert.deepEqual(
      await Promise.all([...first, ...later]),
      Array.from({ length: 26 }, (_, i) => `#${i}`),
    );
    assert.deepEqual(
      batches.map((b) => b.length),
      [10, 10, 6],
      'the first, still beginning when 22 more came, took six of them too; in order, at most 10 each',
    );
  });

  it('a failed batch is written again item by item: only the failing write fails', async () => {
    const batches: number[][] = [];
    const write = groupCommit<number, number>({
      maxBatch: 10,
      write: async (take) => {
        await Promise.resolve();
        const items = take();
        batches.push(items);
        if (items.includes(3)) throw new Error('three is refused');
        if (items.length === 0) throw new Error('nothing taken');
        return items.map((n) => n * 2);
      },
    });
    const results = await Promise.allSettled([1, 2, 3, 4].map(write));
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
      [2, 4, 'three is refused', 8],
    );
    assert.deepEqual(batches, [[1, 2, 3, 4], [1], [2], [3], [4]]);
  });

  it('a transaction that never began (the database stayed locked) fails what it would have taken', async () => {
    let calls = 0;
    const write = groupCommit<number, number>({
      maxBatch: 10,
      write: async () => {
        calls++;
        await Promise.resolve();
        throw new Error('the database stayed locked');
      },
    });
    const results = await Promise.allSettled([1, 2, 3].map(write));
    assert.ok(results.every((r) => r.status === 'rejected'));
    assert.equal(calls, 1, 'not once more for each of its writes: each would wait for the lock again');
  });

  it('a writer that answers fewer items than it took fails them rather than misanswer', async () => {
    const write = groupCommit<number, number>({ maxBatch: 5, write: async (take) => (take(), []) });
    await assert.rejects(write(1), /must answer every item/);
  });

  it('a batch that committed but answered wrongly is failed, never written again item by item', async () => {
    const batches: number[][] = [];
    const write = groupCommit<number, number>({
      maxBatch: 5,
      write: async (take) => (batches.push(take()), []),
    });
    const results = await Promise.allSettled([1, 2].map(write));
    assert.ok(
      results.every((r) => r.status === 'rejected' && /must answer every item/.test(String(r.reason))),
    );
    assert.deepEqual(batches, [[1, 2]], 'its writes were committed: once more would move the coins twice');
  });
});
