import type { Db } from '../../src/db/connect.js';
import { addKillsToRollups, dayOf, ensureFragWindow } from '../../src/modules/killboard/rollups.js';
import type { MadeUser } from './factories.js';

export interface KillFields {
  killer: MadeUser;
  victim: MadeUser;
  game?: 'cs2' | 'cs16' | 'rust';
  server_id?: number;
  weapon?: string;
  headshot?: boolean;
  distance?: number;
  round_number?: number;
  occurred_at: number;
}

export interface MadeKill {
  id: number;
  occurred_at: number;
}

const participant = (user: MadeUser) => ({
  user_id: user.id,
  // a user without a linked account still has the steam id the server saw
  steam_id: user.steam_id ?? '76561197960265729',
  name: user.username,
});

/**
 * Inserts kills and adds them to the top-frag rollups in one transaction, as ingest does, with the
 * window aligned to `now` (pass the clock the app under test uses, so both agree on "today").
 */
export async function makeKills(db: Db, kills: KillFields[], now: number = Date.now()): Promise<MadeKill[]> {
  const windowDay = await ensureFragWindow(db.kysely, dayOf(now));
  return db.kysely.transaction().execute(async (trx) => {
    const made: MadeKill[] = [];
    const rows = [];
    for (const kill of kills) {
      const killer = participant(kill.killer);
      const victim = participant(kill.victim);
      const row = {
        game: kill.game ?? 'cs2',
        server_id: kill.server_id ?? 1,
        match_id: null,
        killer_user_id: killer.user_id,
        killer_steam_id: killer.steam_id,
        killer_name: killer.name,
        victim_user_id: victim.user_id,
        victim_steam_id: victim.steam_id,
        victim_name: victim.name,
        weapon: kill.weapon ?? 'ak47',
        headshot: kill.headshot ? 1 : 0,
        distance: kill.distance ?? 10.5,
        round_number: kill.round_number ?? 1,
        occurred_at: kill.occurred_at,
      };
      const { id } = await trx.insertInto('kills').values(row).returning('id').executeTakeFirstOrThrow();
      rows.push(row);
      made.push({ id, occurred_at: row.occurred_at });
    }
    await addKillsToRollups(trx, rows, windowDay);
    return made;
  });
}

export async function makeKill(db: Db, kill: KillFields, now?: number): Promise<MadeKill> {
  const [made] = await makeKills(db, [kill], now);
  if (!made) throw new Error('makeKill inserted nothing');
  return made;
}

export interface RatingFields {
  user: MadeUser;
  game?: 'cs2' | 'cs16';
  rating: number;
  games: number;
  wins: number;
}

export async function makeRating(db: Db, fields: RatingFields): Promise<void> {
  await db.kysely
    .insertInto('elo_ratings')
    .values({
      user_id: fields.user.id,
      game: fields.game ?? 'cs2',
      rating: fields.rating,
      games: fields.games,
      wins: fields.wins,
      updated_at: Date.UTC(2026, 0, 1),
    })
    .execute();
}
