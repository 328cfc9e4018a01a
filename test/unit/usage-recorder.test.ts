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
});
