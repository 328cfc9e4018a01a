import { fromAnySteamId, STEAM_ID64_BASE } from './steam-id.js';

/**
 * What counts, in one place. Every consumer of game events (kill feed, top-frag rollups, XP,
 * achievements, Elo) sees only what these rules let through, so they never disagree.
 *
 * Identities: only a Steam account of the public universe gets a hub profile:
 * `[U:1:N]`, `STEAM_0:Y:Z` / `STEAM_1:Y:Z` (both mean public) and a SteamID64. Everything else is
 * not an account and never merges with one: `BOT`, `STEAM_ID_LAN`, `STEAM_ID_PENDING`,
 * `VALVE_ID_LAN`, `VALVE_ID_PENDING`, `HLTV`, `STEAM_ID_UNKNOWN`, account 0, and ids of universe 2
 * and up (`STEAM_2:…`, written by non-Steam emulators such as Reunion/RevEmu, whose numbers map onto
 * real accounts). An id that the same stream shows on two connected players at once (bot mods give
 * every bot `STEAM_0:0:12345`) is shared, hence fake, from then on (see match-state).
 *
 * Kills: a frag is a kill of a human by another human on the other side, in a live round that
 * the server did not void. Not frags: team kills, suicides, world and bomb deaths, kills of or by a
 * bot or any non-account id (human-vs-bot kills are not stored anywhere), kills in warm-up, outside
 * a round, and in a round voided by a restart (`Game_Commencing`, `Restart_Round_(…)`,
 * `Match_Start`) or a restore (`Match_Reloaded`).
 *
 * Matches: rated (and counted for matches played/won, XP, achievements, Elo) only when each side
 * has at least one counted human who played a counted round; bots are not participants.
 */
type NotAnAccount = 'bot' | 'lan' | 'pending' | 'tv' | 'emulator' | 'invalid';
export type PlayerIdentity = { kind: 'account'; steamId64: string } | { kind: NotAnAccount };

const ACCOUNT_ZERO = String(STEAM_ID64_BASE);
const NON_ACCOUNTS = new Map<string, NotAnAccount>([
  ['BOT', 'bot'],
  ['STEAM_ID_LAN', 'lan'],
  ['VALVE_ID_LAN', 'lan'],
  ['STEAM_ID_PENDING', 'pending'],
  ['VALVE_ID_PENDING', 'pending'],
  ['STEAM_ID_UNKNOWN', 'pending'],
  ['HLTV', 'tv'],
]);
const PUBLIC_STEAM2 = /^STEAM_[01]:[01]:\d{1,10}$/;
const OTHER_STEAM2 = /^STEAM_\d+:/;
const SIDES = new Set(['CT', 'TERRORIST']);

/** Who a log or event id names; only `account` may ever become a profile. */
export function identify(raw: string): PlayerIdentity {
  const known = NON_ACCOUNTS.get(raw);
  if (known) return { kind: known };
  if (OTHER_STEAM2.test(raw) && !PUBLIC_STEAM2.test(raw)) return { kind: 'emulator' };
  if (raw.startsWith('VALVE_')) return { kind: 'emulator' };
  const id = fromAnySteamId(raw);
  if (id === null || id === ACCOUNT_ZERO) return { kind: 'invalid' };
  return { kind: 'account', steamId64: id };
}

/** The SteamID64 of an id that names a real account, else null. */
export function accountOf(raw: string): string | null {
  const who = identify(raw);
  return who.kind === 'account' ? who.steamId64 : null;
}

export const isSide = (team: string): boolean => SIDES.has(team);

export type KillVerdict = 'frag' | 'team_kill' | 'not_human';

/**
 * Whether a kill between two players (already known to be distinct, in a counted round) is a
 * frag. `killer`/`victim` are SteamID64s or null for non-accounts; teams as the log writes them.
 */
export function judgeKill(
  killer: { steamId: string | null; team: string },
  victim: { steamId: string | null; team: string },
): KillVerdict {
  if (!killer.steamId || !victim.steamId || killer.steamId === victim.steamId) return 'not_human';
  if (isSide(killer.team) && killer.team === victim.team) return 'team_kill';
  return 'frag';
}

/** A match result counts when both sides have a counted human. */
export const matchCounts = (team1: readonly unknown[], team2: readonly unknown[]): boolean =>
  team1.length > 0 && team2.length > 0;
