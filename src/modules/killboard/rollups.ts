import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../db/types.js';
import { writeTransaction } from '../../db/write-transaction.js';

/**
 * Top-frag rollups. `frag_daily` holds kills and headshots per (player, game, UTC day);
 * `frag_totals` holds running sums per period so every top-frag query is one index range scan:
 *   week  = days [W-6, W], month = days [W-29, W], all = every day,
 * where W is the window day stored in `meta.frag_window_day`. Kills add to the daily row and to each
 * period they fall in, in the caller's transaction. When the UTC day changes, week and month are
 * rebuilt from the daily rows once (by whichever process notices first).
 * `death_totals` holds all-time deaths per (player, game), added in the same transaction from the
 * kills' victims, so a player's combat totals read no raw kills.
 */
export const DAY_MS = 86_400_000;
export const PERIOD_DAYS = { week: 7, month: 30 } as const;
export type Period = keyof typeof PERIOD_DAYS | 'all';
const WINDOW_KEY = 'frag_window_day';

export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);

/** A side is null when it is nobody's (a plugin's unlinked non-Steam player): it counts for no one. */
export interface RollupKill {
  killer_user_id: number | null;
  victim_user_id: number | null;
  game: string;
  occurred_at: number;
  headshot: number;
}

type Db = Kysely<Database> | Transaction<Database>;

function periodsFor(day: number, windowDay: number): Period[] {
  const periods: Period[] = ['all'];
  const age = windowDay - day;
  if (age >= 0 && age < PERIOD_DAYS.week) periods.push('week');
  if (age >= 0 && age < PERIOD_DAYS.month) periods.push('month');
  return periods;
}

async function readWindowDay(db: Db): Promise<number | undefined> {
  const row = await db.selectFrom('meta').select('value').where('key', '=', WINDOW_KEY).executeTakeFirst();
  return row ? Number(row.value) : undefined;
}

/** Recomputes one period's totals from `frag_daily`: `all` over every day, week/month over the window. */
async function rebuildPeriod(trx: Transaction<Database>, period: Period, windowDay: number) {
  await trx.deleteFrom('frag_totals').where('period', '=', period).execute();
  let days = trx
    .selectFrom('frag_daily')
    .select((eb) => [
      sql.lit(period).as('period'),
      'game',
      'user_id',
      eb.fn.sum<number>('kills').as('kills'),
      eb.fn.sum<number>('headshots').as('headshots'),
    ])
    .groupBy(['game', 'user_id']);
  if (period !== 'all') {
    days = days.where('day', '>=', windowDay - PERIOD_DAYS[period] + 1).where('day', '<=', windowDay);
  }
  await trx
    .insertInto('frag_totals')
    .columns(['period', 'game', 'user_id', 'kills', 'headshots'])
    .expression(days)
    .execute();
}

/**
 * Counts every player's deaths per game from the kill feed (an index-only pass on the victim index),
 * replacing `death_totals`: only for a database whose every kill is in the feed (a demo load). A
 * plugin's kill naming a Minecraft or EOS player adds its death to `death_totals` alone, so counting
 * the feed again on a live database would lose it.
 */
export async function countDeathsFromFeed(db: Kysely<Database>): Promise<void> {
  await writeTransaction(db, async (trx) => {
    await trx.deleteFrom('death_totals').execute();
    await trx
      .insertInto('death_totals')
      .columns(['user_id', 'game', 'deaths'])
      .expression(
        trx
          .selectFrom('kills')
          .select((eb) => ['victim_user_id', 'game', eb.fn.countAll<number>().as('deaths')])
          .groupBy(['victim_user_id', 'game']),
      )
      .execute();
  });
}

/** Rebuilds every period from `frag_daily` (after a bulk load), and sets the window to `windowDay`. */
export async function rebuildFragTotals(db: Kysely<Database>, windowDay: number): Promise<void> {
  await writeTransaction(db, async (trx) => {
    for (const period of ['all', 'week', 'month'] as const) await rebuildPeriod(trx, period, windowDay);
    await trx
      .insertInto('meta')
      .values({ key: WINDOW_KEY, value: String(windowDay) })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: String(windowDay) }))
      .execute();
  });
}

/**
 * Makes sure week and month are aligned to `today`. The conditional update of the meta row makes
 * concurrent callers (several API instances) agree on one rebuild. Returns the window day.
 */
export async function ensureFragWindow(db: Kysely<Database>, today: number): Promise<number> {
  const current = await readWindowDay(db);
  if (current === today) return today;
  // Never move back: a process whose clock lags another's must not undo its rebuild.
  if (current !== undefined && current > today) return current;
  await writeTransaction(db, async (trx) => {
    if (current === undefined) {
      await trx
        .insertInto('meta')
        .values({ key: WINDOW_KEY, value: String(today) })
        .onConflict((oc) => oc.column('key').doNothing())
        .execute();
    } else {
      const moved = await trx
        .updateTable('meta')
        .set({ value: String(today) })
        .where('key', '=', WINDOW_KEY)
        .where('value', '=', String(current))
        .executeTakeFirst();
      if (moved.numUpdatedRows === 0n) return; // another process moved the window
    }
    await rebuildPeriod(trx, 'week', today);
    await rebuildPeriod(trx, 'month', today);
  });
  return today;
}

/** Adds kills to the daily rollups, period totals and victims' deaths, inside the caller's transaction. */
export async function addKillsToRollups(
  trx: Transaction<Database>,
  kills: RollupKill[],
  windowDay: number,
): Promise<void> {
  const daily = new Map<
    string,
    { user_id: number; game: string; day: number; kills: number; headshots: number }
  >();
  const totals = new Map<
    string,
    { period: Period; game: string; user_id: number; kills: number; headshots: number }
  >();
  const deaths = new Map<string, { user_id: number; game: string; deaths: number }>();
  for (const kill of kills) {
    if (kill.victim_user_id !== null) {
      const deathKey = `${kill.victim_user_id}|${kill.game}`;
      const death = deaths.get(deathKey);
      if (death) death.deaths++;
      else deaths.set(deathKey, { user_id: kill.victim_user_id, game: kill.game, deaths: 1 });
    }
    if (kill.killer_user_id === null) continue;
    const day = dayOf(kill.occurred_at);
    const hs = kill.headshot ? 1 : 0;
    const dailyKey = `${kill.killer_user_id}|${kill.game}|${day}`;
    const d = daily.get(dailyKey);
    if (d) {
      d.kills++;
      d.headshots += hs;
    } else
      daily.set(dailyKey, { user_id: kill.killer_user_id, game: kill.game, day, kills: 1, headshots: hs });
    for (const period of periodsFor(day, windowDay)) {
      const totalKey = `${period}|${kill.killer_user_id}|${kill.game}`;
      const t = totals.get(totalKey);
      if (t) {
        t.kills++;
        t.headshots += hs;
      } else
        totals.set(totalKey, {
          period,
          game: kill.game,
          user_id: kill.killer_user_id,
          kills: 1,
          headshots: hs,
        });
    }
  }
  for (const chunk of chunks([...daily.values()], 500)) {
    await trx
      .insertInto('frag_daily')
      .values(chunk)
      .onConflict((oc) =>
        oc.columns(['user_id', 'game', 'day']).doUpdateSet({
          kills: sql`frag_daily.kills + excluded.kills`,
          headshots: sql`frag_daily.headshots + excluded.headshots`,
        }),
      )
      .execute();
  }
  for (const chunk of chunks([...totals.values()], 500)) {
    await trx
      .insertInto('frag_totals')
      .values(chunk)
      .onConflict((oc) =>
        oc.columns(['period', 'game', 'user_id']).doUpdateSet({
          kills: sql`frag_totals.kills + excluded.kills`,
          headshots: sql`frag_totals.headshots + excluded.headshots`,
        }),
      )
      .execute();
  }
  // in one fixed order (player, then game), so concurrent batches lock these rows alike on PostgreSQL
  const byVictim = [...deaths.values()].sort(
    (a, b) => a.user_id - b.user_id || (a.game < b.game ? -1 : a.game > b.game ? 1 : 0),
  );
  for (const chunk of chunks(byVictim, 500)) {
    await trx
      .insertInto('death_totals')
      .values(chunk)
      .onConflict((oc) =>
        oc.columns(['user_id', 'game']).doUpdateSet({ deaths: sql`death_totals.deaths + excluded.deaths` }),
      )
      .execute();
  }
}

export function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
