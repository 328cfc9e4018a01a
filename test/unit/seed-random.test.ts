import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { GAMES, KILL_GAMES, KILL_SHARE } from '../../src/seed/games.js';
import { steamId, usernames } from '../../src/seed/names.js';
import { progressReporter } from '../../src/seed/progress.js';
import { Rng } from '../../src/seed/random.js';

describe('seed building blocks', () => {
  it('Rng repeats for a seed, differs across seeds, and keeps int() inside both bounds', () => {
    const a = new Rng(7);
    const b = new Rng(7);
    const c = new Rng(8);
    const seqA = Array.from({ length: 20 }, () => a.next());
    assert.deepEqual(
      seqA,
      Array.from({ length: 20 }, () => b.next()),
    );
    assert.notDeepEqual(
      seqA,
      Array.from({ length: 20 }, () => c.next()),
    );
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const v = a.int(3, 6);
      assert.ok(v >= 3 && v <= 6, String(v));
      seen.add(v);
    }
    assert.deepEqual([...seen].sort(), [3, 4, 5, 6], 'both ends are reachable');
    for (const v of seqA) assert.ok(v >= 0 && v < 1);
  });

  it('samples distinct indexes and picks by weight', () => {
    const rng = new Rng(1);
    for (const [n, k] of [
      [10, 10],
      [100, 3],
      [5, 0],
    ] as const) {
      const s = rng.sample(n, k);
      assert.equal(s.length, k);
      assert.equal(new Set(s).size, k);
      for (const v of s) assert.ok(v >= 0 && v < n);
    }
    assert.throws(() => rng.sample(3, 4), /cannot sample 4 of 3/);
    const counts = new Int32Array(3);
    for (let i = 0; i < 10_000; i++) {
      const k = rng.weighted([1, 0, 3]);
      counts[k] = (counts[k] ?? 0) + 1;
    }
    assert.equal(counts[1], 0, 'a zero weight is never picked');
    assert.ok(Math.abs((counts[2] ?? 0) / 10_000 - 0.75) < 0.03);
  });

  it('makes unique gamer tags and valid, unique SteamID64s', () => {
    const rng = new Rng(3);
    const names = usernames(rng, 5000);
    assert.equal(new Set(names).size, 5000);
    for (const n of names) assert.ok(n.length >= 3 && n.length <= 64, n);
    const ids = Array.from({ length: 5000 }, (_, i) => steamId(rng, i));
    assert.equal(new Set(ids).size, 5000);
    for (const id of ids) assert.match(id, /^7656119\d{10}$/);
  });

  it('describes every game with maps, and weapons for the killboard games', () => {
    assert.deepEqual(
      GAMES.map((g) => g.code),
      ['cs2', 'cs16', 'rust', 'minecraft'],
    );
    assert.deepEqual(
      KILL_GAMES.map((g) => g.code),
      ['cs2', 'cs16', 'rust'],
    );
    assert.equal(KILL_SHARE.length, KILL_GAMES.length);
    for (const g of GAMES) assert.ok(g.maps.length >= 5, g.code);
    const codes = (code: string) => new Set(GAMES.find((g) => g.code === code)?.weapons.map((w) => w.code));
    for (const w of ['ak47', 'm4a1', 'awp', 'deagle', 'usp_silencer', 'glock', 'knife', 'hegrenade']) {
      assert.ok(codes('cs2').has(w), w);
    }
    for (const w of ['rifle.ak', 'bow.hunting', 'rifle.bolt']) assert.ok(codes('rust').has(w), w);
  });

  it('draws a bar on a terminal and plain phase lines otherwise', () => {
    const capture = (isTTY: boolean) => {
      const stream = Object.assign(new PassThrough(), { isTTY });
      let text = '';
      stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
      const report = progressReporter(stream as unknown as NodeJS.WriteStream);
      report(0, 100, 'kills');
      report(50, 100, 'kills');
      report(100, 100, 'kills');
      report(1, 1, 'rollups');
      return text;
    };
    const plain = capture(false);
    assert.match(plain, /^seed: kills done \(100\) at \d+\.\d s\nseed: rollups done \(1\) at \d+\.\d s\n$/);
    const tty = capture(true);
    assert.match(tty, /\rkills +█{30} 100% {2}100\/100/);
    assert.match(tty, /\rkills +░{30} {3}0% {2}0\/100/);
    assert.match(tty, /\rrollups +█{30} 100%/);
  });
});
