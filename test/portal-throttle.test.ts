import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RedisThrottleStore } from '../src/modules/accounts/redis-throttle-store.js';
import {
  MemoryThrottleStore,
  networkOf,
  THROTTLE_WINDOW_MS,
  type ThrottleCheck,
  type ThrottleStore,
} from '../src/modules/accounts/throttle.js';
import { sharedLink, sharedRedisUrl, uniquePrefix } from './helpers/redis.js';

const stores: [string, () => Promise<ThrottleStore>][] = [
  ['memory', () => Promise.resolve(new MemoryThrottleStore())],
];
if (sharedRedisUrl) {
  stores.push(['redis', async () => new RedisThrottleStore(await sharedLink(), uniquePrefix('th'))]);
}

const t0 = Date.UTC(2026, 0, 1);
const five = (subject: string): ThrottleCheck => ({ subject, limit: 5, windowMs: THROTTLE_WINDOW_MS });

// The same contract for every store implementation.
for (const [name, make] of stores) {
  describe(`throttle store contract (${name})`, () => {
    let store: ThrottleStore;
    before(async () => {
      store = await make();
    });
    after(() => store.close());

    it('admits up to the limit in a sliding window and says when the oldest attempt frees a place', async () => {
      for (let i = 0; i < 5; i++) {
        const reservation = await store.reserve([five('account:a')], t0 + i * 60_000);
        assert.equal(reservation.ok, true, `attempt ${i + 1}`);
      }
      assert.deepEqual(await store.reserve([five('account:a')], t0 + 300_000), {
        ok: false,
        retryAt: t0 + THROTTLE_WINDOW_MS,
      });
      // a refused attempt takes no place: the first one still leaves the window exactly 15 minutes on
      assert.equal((await store.reserve([five('account:a')], t0 + THROTTLE_WINDOW_MS - 1)).ok, false);
      assert.equal((await store.reserve([five('account:a')], t0 + THROTTLE_WINDOW_MS)).ok, true);
      assert.deepEqual(await store.reserve([five('account:a')], t0 + THROTTLE_WINDOW_MS), {
        ok: false,
        retryAt: t0 + 60_000 + THROTTLE_WINDOW_MS,
      });
      assert.equal((await store.reserve([five('account:other')], t0)).ok, true, 'subjects are apart');
    });

    it('reserves on every subject or on none', async () => {
      const tight: ThrottleCheck = { subject: 'address:tight', limit: 1, windowMs: THROTTLE_WINDOW_MS };
      assert.equal((await store.reserve([five('account:b'), tight], t0)).ok, true);
      // the address refuses, so the account must not have been charged
      for (let i = 0; i < 10; i++)
        assert.equal((await store.reserve([five('account:b'), tight], t0)).ok, false);
      for (let i = 0; i < 4; i++) assert.equal((await store.reserve([five('account:b')], t0)).ok, true);
      assert.equal((await store.reserve([five('account:b')], t0)).ok, false);
    });

    it('gives a released place back and forgets a reset subject', async () => {
      const tickets: string[] = [];
      for (let i = 0; i < 5; i++) {
        const reservation = await store.reserve([five('account:c')], t0);
        assert.ok(reservation.ok);
        tickets.push(reservation.ticket);
      }
      await store.release('account:c', tickets[2] ?? '');
      assert.equal((await store.reserve([five('account:c')], t0)).ok, true, 'one place back');
      assert.equal((await store.reserve([five('account:c')], t0)).ok, false);
      await store.reset('account:c');
      assert.equal((await store.reserve([five('account:c')], t0)).ok, true);
    });

    it('admits exactly the limit out of many concurrent attempts', async () => {
      const results = await Promise.all(
        Array.from({ length: 40 }, async () => store.reserve([five('account:d')], t0)),
      );
      assert.equal(results.filter((r) => r.ok).length, 5);
      const tickets = results.flatMap((r) => (r.ok ? [r.ticket] : []));
      assert.equal(new Set(tickets).size, 5, 'every ticket is distinct');
    });

    it('reports itself healthy', () => {
      assert.deepEqual(store.health(), { status: 'ok' });
    });
  });
}

describe('memory throttle store', () => {
  it('forgets expired subjects instead of growing without bound', () => {
    const store = new MemoryThrottleStore();
    for (let i = 0; i < 10_000; i++) store.reserve([five(`account:u${i}`)], t0);
    assert.equal(store.size, 10_000);
    store.reserve([five('account:late')], t0 + THROTTLE_WINDOW_MS + 1);
    assert.equal(store.size, 1);
  });
});

describe('the network an address counts for', () => {
  it('is an IPv4 address itself (also when IPv4-mapped) and the /64 of an IPv6 address', () => {
    assert.equal(networkOf('203.0.113.7'), '203.0.113.7');
    assert.equal(networkOf('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(networkOf('2001:db8:1:2:aaaa:bbbb:cccc:dddd'), '2001:db8:1:2::/64');
    assert.equal(networkOf('2001:db8:1:2::1'), '2001:db8:1:2::/64');
    assert.equal(networkOf('2001:0db8:0001:0002:0::ffff'), '2001:db8:1:2::/64');
    assert.equal(networkOf('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(networkOf('::1'), '0:0:0:0::/64');
  });
});
