import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TurnMemo } from '../../src/db/turn-memo.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('TurnMemo', () => {
  it('reads once per event-loop turn', async () => {
    let source = 1;
    let reads = 0;
    const memo = new TurnMemo(() => {
      reads++;
      return source;
    });
    assert.equal(memo.get(), 1);
    source = 2;
    assert.equal(memo.get(), 1);
    await Promise.resolve();
    assert.equal(memo.get(), 1, 'microtasks are the same turn');
    assert.equal(reads, 1);
    await nextTurn();
    assert.equal(memo.get(), 2);
    assert.equal(reads, 2);
  });

  it('reads again after forget()', () => {
    let source = 1;
    const memo = new TurnMemo(() => source);
    assert.equal(memo.get(), 1);
    source = 2;
    memo.forget();
    assert.equal(memo.get(), 2);
  });
});
