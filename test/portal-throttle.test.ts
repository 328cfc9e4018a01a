import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryLoginThrottleStore, THROTTLE_WINDOW_MS } from '../src/modules/accounts/throttle.js';

describe('memory login throttle store', () => {
  it('counts failures in a sliding 15-minute window and reports when the oldest expires', () => {
    const store = new MemoryLoginThrottleStore();
    const t0 = Date.UTC(2026, 0, 1);
    store.recordFailure('account:a', t0);
    store.recordFailure('account:a', t0 + 60_000);
    assert.deepEqual(store.failures('account:a', t0 + 120_000), {
      count: 2,
      retryAt: t0 + THROTTLE_WINDOW_MS,
    });
    // the first failure leaves the window exactly 15 minutes later
    assert.equal(store.failures('account:a', t0 + THROTTLE_WINDOW_MS - 1).count, 2);
    assert.equal(store.failures('account:a', t0 + THROTTLE_WINDOW_MS).count, 1);
    assert.equal(store.failures('account:a', t0 + THROTTLE_WINDOW_MS + 60_000).count, 0);
    assert.equal(store.failures('account:b', t0).count, 0);
    store.recordFailure('account:b', t0);
    store.reset('account:b');
    assert.equal(store.failures('account:b', t0).count, 0);
  });

  it('forgets expired subjects instead of growing without bound', () => {
    const store = new MemoryLoginThrottleStore();
    const t0 = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 10_000; i++) store.recordFailure(`account:u${i}`, t0);
    assert.equal(store.size, 10_000);
    store.recordFailure('account:late', t0 + THROTTLE_WINDOW_MS + 1);
    assert.equal(store.size, 1);
  });
});
