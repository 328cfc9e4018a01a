import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { percent1 } from '../../src/engines/percent.js';

describe('percent1', () => {
  it('rounds to one decimal, halves up', () => {
    assert.equal(percent1(1, 3), 33.3);
    assert.equal(percent1(2, 3), 66.7);
    assert.equal(percent1(1, 16), 6.3); // 6.25
    assert.equal(percent1(3, 16), 18.8); // 18.75
    assert.equal(percent1(1, 8), 12.5);
    assert.equal(percent1(7, 7), 100);
    assert.equal(percent1(0, 5), 0);
  });

  it('is 0 when there is nothing to divide by', () => {
    assert.equal(percent1(0, 0), 0);
  });
});
