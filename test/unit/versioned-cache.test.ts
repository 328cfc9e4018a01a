import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VersionedCache } from '../../src/db/versioned-cache.js';

describe('VersionedCache', () => {
  const setup = (maxEntries?: number) => {
    let version = 1;
    const rows = new Map([
      ['a', { value: 'A1' }],
      ['b', { value: 'B1' }],
    ]);
    const loads: string[] = [];
    const load = (key: string) => {
      loads.push(key);
      return rows.get(key);
    };
    const cache = new VersionedCache<string, { value: string }>(() => version, maxEntries);
    return { cache, load, loads, rows, bump: () => version++ };
  };

  it('serves a found value from memory while the version stays put', () => {
    const { cache, load, loads } = setup();
    assert.equal(cache.get('a', load)?.value, 'A1');
    assert.equal(cache.get('a', load)?.value, 'A1');
    assert.deepEqual(loads, ['a']);
  });

  it('reads again, and sees the change, as soon as the version moves', () => {
    const { cache, load, loads, rows, bump } = setup();
    cache.get('a', load);
    rows.set('a', { value: 'A2' });
    assert.equal(cache.get('a', load)?.value, 'A1', 'an unchanged version means an unchanged database');
    bump();
    assert.equal(cache.get('a', load)?.value, 'A2');
    assert.deepEqual(loads, ['a', 'a']);
  });

  it('never remembers a miss, so a row created later is found', () => {
    const { cache, load, loads, rows } = setup();
    assert.equal(cache.get('c', load), undefined);
    rows.set('c', { value: 'C1' });
    assert.equal(cache.get('c', load)?.value, 'C1');
    assert.deepEqual(loads, ['c', 'c']);
  });

  it('holds at most maxEntries values', () => {
    const { cache, load, loads } = setup(1);
    cache.get('a', load);
    cache.get('b', load);
    cache.get('a', load);
    assert.deepEqual(loads, ['a', 'b', 'a']);
  });
});
