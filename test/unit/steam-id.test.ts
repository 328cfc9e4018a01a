import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fromAnySteamId, parsePlayer, toSteam2, toSteam3 } from '../../src/engines/steam-id.js';

// Worked example: account id 24691 = 12345 × 2 + 1; 76561197960265728 + 24691 = 76561197960290419.
const ID64 = '76561197960290419';

describe('steam id forms', () => {
  it('converts one account between its three forms', () => {
    assert.equal(fromAnySteamId('STEAM_0:1:12345'), ID64);
    assert.equal(fromAnySteamId('STEAM_1:1:12345'), ID64);
    assert.equal(fromAnySteamId('[U:1:24691]'), ID64);
    assert.equal(fromAnySteamId(ID64), ID64);
    assert.equal(toSteam2(ID64), 'STEAM_0:1:12345');
    assert.equal(toSteam2(BigInt(ID64), 1), 'STEAM_1:1:12345');
    assert.equal(toSteam3(ID64), '[U:1:24691]');
  });

  it('handles the even low bit and the ends of the individual range', () => {
    // STEAM_0:0:12345 → 12345 × 2 + 0 = 24690
    assert.equal(fromAnySteamId('STEAM_0:0:12345'), '76561197960290418');
    assert.equal(toSteam2('76561197960290418'), 'STEAM_0:0:12345');
    assert.equal(fromAnySteamId('[U:1:0]'), '76561197960265728');
    // 2^32 − 1 = 4294967295 = 2147483647 × 2 + 1
    assert.equal(fromAnySteamId('[U:1:4294967295]'), '76561202255233023');
    assert.equal(fromAnySteamId('STEAM_0:1:2147483647'), '76561202255233023');
    assert.equal(toSteam2('76561202255233023'), 'STEAM_0:1:2147483647');
    assert.equal(toSteam3('76561202255233023'), '[U:1:4294967295]');
  });

  it('parses the four player forms', () => {
    assert.deepEqual(parsePlayer(ID64), { kind: 'steam', steamId64: ID64 });
    assert.deepEqual(parsePlayer('STEAM_5:1:12345'), { kind: 'steam', steamId64: ID64 });
    assert.deepEqual(parsePlayer('[U:1:24691]'), { kind: 'steam', steamId64: ID64 });
    assert.deepEqual(parsePlayer('u42'), { kind: 'user', userId: 42 });
    assert.deepEqual(parsePlayer('u2147483647'), { kind: 'user', userId: 2147483647 });
  });

  it('rejects everything else', () => {
    for (const bad of [
      '',
      'abc',
      '7656119796029041', // 16 digits
      '765611979602904190', // 18 digits
      '76561197960265727', // one below the individual range
      '76561202255233024', // one above it
      'STEAM_6:1:1',
      'STEAM_0:2:1',
      'STEAM_0:1:',
      'STEAM_0:1:2147483648', // account id 2^32 + 1
      'steam_0:1:12345',
      ' STEAM_0:1:12345',
      '[U:2:24691]',
      '[U:1:4294967296]',
      'U:1:24691',
      '[U:1:-1]',
      'u',
      'u0',
      'u012',
      'u-1',
      'u1.5',
      'u2147483648',
      'U42',
    ]) {
      assert.equal(parsePlayer(bad), null, bad);
    }
    assert.equal(fromAnySteamId('u42'), null);
  });

  it('refuses to format an id outside the individual range', () => {
    assert.throws(() => toSteam2('76561197960265727'), RangeError);
    assert.throws(() => toSteam3('12345'), RangeError);
  });
});
