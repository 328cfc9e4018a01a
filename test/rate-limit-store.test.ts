import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MemoryRateLimitStore, type RateLimitStore } from '../src/http/rate-limit-store.js';
import { LocalBroadcast } from '../src/http/broadcast.js';
import { RedisRateLimitStore } from '../src/http/redis-rate-limit-store.js';
import { WINDOW_MS, windowStartOf } from '../src/http/quota.js';
import { sharedLink, sharedRedisUrl, uniquePrefix } from './helpers/redis.js';

const stores: [string, () => Promise<RateLimitStore>][] = [
  ['memory', () => Promise.resolve(new MemoryRateLimitStore())],
];
if (sharedRedisUrl) {
  stores.push([
    'redis',
    async () => new RedisRateLimitStore(await sharedLink(), uniquePrefix('rl'), 'one', new LocalBroadcast()),
  ]);
}

// The same contract for every store implementation.
for (const [name, make] of stores) {
  describe(`rate-limit store contract (${name})`, () => {
    let store: RateLimitStore;
    before(async () => {
      store = await make();
    });
    after(() => store.close());
    const window = windowStartOf(Date.now());
    const subject = { limit: 1000, tier: 'free' };

    it('counts hits per key and per window', async () => {
      assert.equal(await store.hit('a', window, WINDOW_MS, subject), 1);
      assert.equal(await store.hit('a', window, WINDOW_MS, subject), 2);
      assert.equal(await store.hit('b', window, WINDOW_MS, subject), 1);
      assert.equal(await store.peek('a', window), 2);
      assert.equal(
        await store.hit('a', window + WINDOW_MS, WINDOW_MS, subject),
        1,
        'a new window starts at 1',
      );
    });

    it('refunds a hit', async () => {
      assert.equal(await store.hit('r', window, WINDOW_MS, subject), 1);
      assert.equal(await store.hit('r', window, WINDOW_MS, subject), 2);
      await store.refund('r', window);
      assert.equal(await store.peek('r', window), 1);
      assert.equal(await store.hit('r', window, WINDOW_MS, subject), 2);
    });

    it('hands out every count exactly once under concurrency', async () => {
      const counts = await Promise.all(
        Array.from({ length: 200 }, async () => store.hit('c', window, WINDOW_MS, subject)),
      );
      assert.deepEqual(
        [...counts].sort((x, y) => x - y),
        Array.from({ length: 200 }, (_, i) => i + 1),
      );
    });

    it('reports itself healthy', () => {
      assert.deepEqual(store.health(), { status: 'ok' });
    });
  });
}

describe('window alignment', () => {
  it('aligns windows to the UTC hour', () => {
    assert.equal(windowStartOf(Date.UTC(2026, 10, 21, 15, 59, 59, 999)), Date.UTC(2026, 10, 21, 15));
    assert.equal(windowStartOf(Date.UTC(2026, 10, 21, 16)), Date.UTC(2026, 10, 21, 16));
  });
});
