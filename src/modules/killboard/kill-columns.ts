import type { KillsTable } from '../../db/types.js';

/** The written columns of `kills`, in the one order every bulk writer (ingest, seed) uses. */
export const KILL_COLUMNS = [
  'game',
  'server_id',
  'match_id',
  'killer_user_id',
  'killer_steam_id',
  'killer_name',
  'victim_user_id',
  'victim_steam_id',
  'victim_name',
  'weapon',
  'headshot',
  'distance',
  'round_number',
  'occurred_at',
] as const satisfies readonly (keyof KillsTable)[];

export type KillColumn = (typeof KILL_COLUMNS)[number];
