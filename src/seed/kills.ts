import { KILL_COLUMNS } from '../modules/killboard/kill-columns.js';
import { dayOf } from '../modules/killboard/rollups.js';
import { KILL_GAMES, KILL_SHARE } from './games.js';
import type { SeedRepo } from './repo.js';
import { activePlayer, DAY, type World } from './world.js';

/** Kills cover the 90 UTC days ending today (today up to `now`). */
export const KILL_DAYS = 90;
/** Largest (player, game, day) grid kept in memory by default: 2 × 4 bytes per cell, ~320 MB. */
export const DENSE_CELLS = 40_000_000;

// Seeded kills belong to no match row; the values below are pushed in exactly this order.
const SEED_KILL_COLUMNS = KILL_COLUMNS.filter((c) => c !== 'match_id');

/**
 * Streams `total` kills day by day, oldest first, one transaction per day. Each day's `frag_daily`
 * rows are aggregated in memory while its kills are generated and written with them, so the
 * rollups equal the kill table by construction. Also fills the players' kill counters.
 */
export async function seedKills(
  world: World,
  repo: SeedRepo,
  total: number,
  progress: (done: number) => void,
  maxDenseCells = DENSE_CELLS,
): Promise<void> {
  const { rng, now, counters, names, steamIds } = world;
  const today = dayOf(now);
  const games = KILL_GAMES.map((game) => {
    const weights = game.weapons.map((w) => w.weight);
    return {
      game,
      weights,
      weightSum: weights.reduce((s, x) => s + x, 0),
      pool: world.pools.get(game.code) ?? new Int32Array(0),
      servers: world.serversByGame.get(game.code) ?? [],
      perGame: counters[`${game.code}_kills` as 'cs2_kills' | 'cs16_kills' | 'rust_kills'],
    };
  });
  const shares = [...KILL_SHARE];
  // Daily rollups are aggregated in memory. When a dense (player, game, day) grid fits, rows are
  // written once at the end in primary-key order (appends instead of random B-tree inserts, half of
  // the load time at 5M kills); otherwise each day's rows are written with its kills.
  const cells = world.userCount * KILL_GAMES.length * KILL_DAYS;
  const dense =
    cells <= maxDenseCells ? { kills: new Int32Array(cells), headshots: new Int32Array(cells) } : undefined;
  let done = 0;
  for (let d = 0; d < KILL_DAYS; d++) {
    const day = today - (KILL_DAYS - 1) + d;
    const count = Math.floor((total * (d + 1)) / KILL_DAYS) - Math.floor((total * d) / KILL_DAYS);
    const start = day * DAY;
    const span = Math.max(60_000, Math.min(DAY, now - start));
    const times = new Float64Array(count);
    for (let i = 0; i < count; i++) times[i] = start + Math.floor(rng.next() * span);
    times.sort();
    // (player, game) -> [kills, headshots] for this day; key = player * 4 + game index
    const daily = new Map<number, [number, number]>();
    const dayIndex = d;
    await repo.inTransaction(async (trx) => {
      const kills = repo.writer(trx, 'kills', SEED_KILL_COLUMNS);
      for (let i = 0; i < count; i++) {
        const g = rng.weighted(shares, 1);
        const entry = games[g];
        if (!entry || entry.pool.length < 2) continue;
        const killer = activePlayer(rng, entry.pool);
        let victim = killer;
        while (victim === killer) victim = entry.pool[Math.floor(rng.next() * entry.pool.length)] ?? killer;
        const weapon =
          entry.game.weapons[rng.weighted(entry.weights, entry.weightSum)] ?? entry.game.weapons[0];
        if (!weapon) continue;
        const headshot = rng.next() < weapon.hs ? 1 : 0;
        const [min, max] = weapon.range;
        const distance = Math.min(
          max,
          Math.round((min + (max - min) * rng.next() * rng.next() * 1.6) * 10) / 10,
        );
        const v = kills.values;
        v.push(
          entry.game.code,
          entry.servers[Math.floor(rng.next() * entry.servers.length)] ?? 1,
          killer + 1,
          steamIds[killer],
          names[killer],
          victim + 1,
          steamIds[victim],
          names[victim],
          weapon.code,
          headshot,
          distance,
          1 + Math.floor(rng.next() * entry.game.maxRound),
          times[i],
        );
        if (kills.endRow()) await kills.flush();

        counters.kills[killer] = (counters.kills[killer] ?? 0) + 1;
        counters.headshots[killer] = (counters.headshots[killer] ?? 0) + headshot;
        entry.perGame[killer] = (entry.perGame[killer] ?? 0) + 1;
        const cls =
          weapon.cls === 'knife'
            ? counters.knife_kills
            : weapon.cls === 'sniper'
              ? counters.sniper_kills
              : weapon.cls === 'pistol'
                ? counters.pistol_kills
                : weapon.cls === 'grenade'
                  ? counters.grenade_kills
                  : undefined;
        if (cls) cls[killer] = (cls[killer] ?? 0) + 1;
        if (distance >= 50) counters.long_range_kills[killer] = (counters.long_range_kills[killer] ?? 0) + 1;

        if (dense) {
          const cell = (killer * KILL_GAMES.length + g) * KILL_DAYS + dayIndex;
          dense.kills[cell] = (dense.kills[cell] ?? 0) + 1;
          dense.headshots[cell] = (dense.headshots[cell] ?? 0) + headshot;
        } else {
          const key = killer * 4 + g;
          const agg = daily.get(key);
          if (agg) {
            agg[0]++;
            agg[1] += headshot;
          } else daily.set(key, [1, headshot]);
        }
      }
      await kills.flush();
      if (dense) return;
      const frag = repo.writer(trx, 'frag_daily', ['user_id', 'game', 'day', 'kills', 'headshots']);
      for (const [key, [k, hs]] of daily) {
        frag.values.push(Math.floor(key / 4) + 1, KILL_GAMES[key % 4]?.code, day, k, hs);
        if (frag.endRow()) await frag.flush();
      }
      await frag.flush();
    });
    done += count;
    progress(done);
  }
  if (dense) await writeDenseDaily(repo, dense, today - (KILL_DAYS - 1));
}

async function writeDenseDaily(
  repo: SeedRepo,
  dense: { kills: Int32Array; headshots: Int32Array },
  firstDay: number,
): Promise<void> {
  await repo.inTransaction(async (trx) => {
    const frag = repo.writer(trx, 'frag_daily', ['user_id', 'game', 'day', 'kills', 'headshots']);
    const games = KILL_GAMES.length;
    for (let cell = 0; cell < dense.kills.length; cell++) {
      const k = dense.kills[cell] ?? 0;
      if (k === 0) continue;
      const series = Math.floor(cell / KILL_DAYS);
      frag.values.push(
        Math.floor(series / games) + 1,
        KILL_GAMES[series % games]?.code,
        firstDay + (cell % KILL_DAYS),
        k,
        dense.headshots[cell] ?? 0,
      );
      if (frag.endRow()) await frag.flush();
    }
    await frag.flush();
  });
}
