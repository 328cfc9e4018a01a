import type { Kysely, Selectable } from 'kysely';
import type { Database, KillsTable } from '../../db/types.js';
import type { PlayerRef } from '../../engines/steam-id.js';
import { GAMES, KILLBOARD_GAMES } from '../../http/schemas.js';
import { KILL_COLUMNS, type KillColumn } from './kill-columns.js';
import { dayOf, ensureFragWindow, type Period } from './rollups.js';

/** A feed row: every column of `kills` but the match link. */
export type KillRow = Omit<Selectable<KillsTable>, 'match_id'>;

export interface FragLeaderRow {
  user_id: number;
  game: string;
  kills: number;
  headshots: number;
  username: string;
  steam_id: string | null;
}

export interface FeedQuery {
  game?: string | undefined;
  player?: PlayerRef | undefined;
  limit: number;
}

// The feed shows every column but the match link.
type FeedColumn = 'k.id' | `k.${Exclude<KillColumn, 'match_id'>}`;
const FEED_COLUMNS: readonly FeedColumn[] = [
  'k.id',
  ...KILL_COLUMNS.filter((c) => c !== 'match_id').map((c) => `k.${c}` as FeedColumn),
];

export function killboardRepo(db: Kysely<Database>) {
  /** The newest `limit` kill ids where the user is on one side, from that side's index alone. */
  const side = (column: 'killer_user_id' | 'victim_user_id', userId: number, q: FeedQuery) => {
    let query = db.selectFrom('kills').select(['id', 'occurred_at']).where(column, '=', userId);
    if (q.game !== undefined) query = query.where('game', '=', q.game);
    return db
      .selectFrom(query.orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(q.limit).as(column))
      .select(['id', 'occurred_at']);
  };

  // The top-frag window only moves once per UTC day; remembering the day it was last checked keeps
  // that read (and its rebuild) off the hot path. A pending promise is shared by concurrent callers.
  let window: { day: number; ready: Promise<number> } | undefined;

  return {
    /**
     * One player's all-time kills and headshots per game (the `all` rollup, a primary-key lookup
     * per game) and deaths per game (the `death_totals` rollup, one primary-key range), for the games
     * where they have any, in GAMES order: a plugin's Minecraft kills (identity links) count here
     * too, though the published killboard lists only KILLBOARD_GAMES.
     */
    async combatTotals(
      userId: number,
    ): Promise<{ game: string; kills: number; deaths: number; headshots: number }[]> {
      const [frags, deaths] = await Promise.all([
        db
          .selectFrom('frag_totals')
          .select(['game', 'kills', 'headshots'])
          .where('period', '=', 'all')
          .where('game', 'in', GAMES)
          .where('user_id', '=', userId)
          .execute(),
        db.selectFrom('death_totals').select(['game', 'deaths as n']).where('user_id', '=', userId).execute(),
      ]);
      return GAMES.map((game) => {
        const frag = frags.find((f) => f.game === game);
        return {
          game,
          kills: frag?.kills ?? 0,
          headshots: frag?.headshots ?? 0,
          deaths: deaths.find((d) => d.game === game)?.n ?? 0,
        };
      }).filter((t) => t.kills > 0 || t.deaths > 0);
    },

    /**
     * Newest kills first (occurred_at desc, id desc). With a player: the two per-side index ranges,
     * each cut at `limit`, are merged (UNION also drops the duplicate of a self-kill) and cut again,
     * so the cost stays bounded however many kills the player has. A steam id is resolved to its
     * user first, in its own statement: PostgreSQL then plans the range scans for that very user
     * (a heavy player gets the ordered index scan) instead of for an average one.
     */
    async feed(q: FeedQuery): Promise<KillRow[]> {
      if (q.player === undefined) {
        let query = db.selectFrom('kills as k').select(FEED_COLUMNS);
        if (q.game !== undefined) query = query.where('k.game', '=', q.game);
        return query.orderBy('k.occurred_at', 'desc').orderBy('k.id', 'desc').limit(q.limit).execute();
      }
      const userId =
        q.player.kind === 'user'
          ? q.player.userId
          : (
              await db
                .selectFrom('users')
                .select('id')
                .where('steam_id', '=', q.player.steamId64)
                .executeTakeFirst()
            )?.id;
      if (userId === undefined) return [];
      const newest = db
        .selectFrom(
          side('killer_user_id', userId, q)
            .union(side('victim_user_id', userId, q))
            .as('both'),
        )
        .select(['both.id', 'both.occurred_at'])
        .orderBy('both.occurred_at', 'desc')
        .orderBy('both.id', 'desc')
        .limit(q.limit);
      return db
        .selectFrom(newest.as('p'))
        .innerJoin('kills as k', 'k.id', 'p.id')
        .select(FEED_COLUMNS)
        .orderBy('p.occurred_at', 'desc')
        .orderBy('p.id', 'desc')
        .execute();
    },

    /** Aligns the top-frag week/month totals to `now`'s UTC day, at most once per day per process. */
    ensureWindow(now: number): Promise<number> {
      const day = dayOf(now);
      if (window?.day !== day) {
        const ready = ensureFragWindow(db, day);
        window = { day, ready };
        // A failed rebuild must be retried by the next request, not remembered.
        ready.catch(() => {
          if (window?.ready === ready) window = undefined;
        });
      }
      return window.ready;
    },

    /**
     * One row per (player, game) from the period totals, kills desc then user id asc then game:
     * exactly the order of `frag_totals_rank` / `frag_totals_game_rank`, so this is a LIMIT-bounded
     * index range scan with a primary-key lookup of each user.
     */
    topFrag(period: Period, game: string | undefined, limit: number): Promise<FragLeaderRow[]> {
      let query = db
        .selectFrom('frag_totals as f')
        .innerJoin('users as u', 'u.id', 'f.user_id')
        .select(['f.user_id', 'f.game', 'f.kills', 'f.headshots', 'u.username', 'u.steam_id'])
        .where('f.period', '=', period);
      // the published leaders are of KILLBOARD_GAMES only (a Minecraft server's kills are not)
      query =
        game !== undefined ? query.where('f.game', '=', game) : query.where('f.game', 'in', KILLBOARD_GAMES);
      return query
        .orderBy('f.kills', 'desc')
        .orderBy('f.user_id', 'asc')
        .orderBy('f.game', 'asc')
        .limit(limit)
        .execute();
    },
  };
}

export type KillboardRepo = ReturnType<typeof killboardRepo>;
