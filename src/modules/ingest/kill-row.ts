import type { KillRecord } from './match-state.js';
import type { NewKill } from './repo.js';

/** The kill-feed row of a counted kill between two Steam players, with their hub user ids. */
export const killRow = (
  server: { id: number; game: string },
  k: KillRecord,
  killer: number,
  victim: number,
): NewKill => ({
  game: server.game,
  server_id: server.id,
  match_id: null,
  killer_user_id: killer,
  killer_steam_id: k.killer.steamId,
  killer_name: k.killer.name.slice(0, 64),
  victim_user_id: victim,
  victim_steam_id: k.victim.steamId,
  victim_name: k.victim.name.slice(0, 64),
  weapon: k.weapon.slice(0, 32),
  headshot: k.headshot ? 1 : 0,
  distance: k.distance,
  round_number: k.round,
  occurred_at: k.occurredAt,
});
