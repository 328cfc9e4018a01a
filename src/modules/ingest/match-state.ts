import { distanceMetres, type LogEvent, type LogPlayer } from './parsers/log-line.js';

/**
 * The state of one server's log stream, carried from batch to batch (stored per server in
 * `ingest_state`): map, round, score and every player's side and rounds played. Turning events
 * into kills and match results is pure, so the same code serves HTTP and UDP, CS2 and CS 1.6.
 */
export interface StreamState {
  map: string;
  round: number;
  ct: number;
  t: number;
  inMatch: boolean;
  /** SteamID64 -> name, side (CT/TERRORIST/other), rounds played this match, kills this round */
  players: Record<string, { name: string; team: string; rounds: number; roundKills: number; left?: boolean }>;
}

export const emptyState = (): StreamState => ({
  map: '',
  round: 0,
  ct: 0,
  t: 0,
  inMatch: false,
  players: {},
});

export interface KillRecord {
  killer: { steamId: string; name: string };
  victim: { steamId: string; name: string };
  weapon: string;
  headshot: boolean;
  distance: number;
  round: number;
  occurredAt: number;
  /** the killer's kills so far in this round, including this one */
  roundKills: number;
}

export interface MatchParticipant {
  steamId: string;
  name: string;
  /** share of the match's rounds played, 0..1 */
  participation: number;
}

export interface MatchRecord {
  map: string;
  team1: MatchParticipant[];
  team2: MatchParticipant[];
  team1Score: number;
  team2Score: number;
  endedAt: number;
  tournamentId?: number;
}

export interface StreamOutput {
  kills: KillRecord[];
  matches: MatchRecord[];
  /** every player seen with a Steam ID (to create hub profiles) */
  seen: Map<string, string>;
  /** events that carried nothing to store (bots, spectators, unknown lines) */
  ignored: number;
}

const SIDES = new Set(['CT', 'TERRORIST']);

/** CS 1.6 (GoldSrc) writes no "Game Over" line: its matches end at the next map. */
export const endsOnMapChange = (game: string): boolean => game === 'cs16';

/**
 * Applies events to `state` (mutated) and returns what to store. `endOnMapChange` is the GoldSrc
 * rule: CS 1.6 writes no "Game Over" line, so a match in progress ends when the map changes or the
 * log closes, with the last reported score. CS2 ends a match at its `Game Over` line.
 */
export function applyLogEvents(
  state: StreamState,
  events: LogEvent[],
  endOnMapChange: boolean,
): StreamOutput {
  const out: StreamOutput = { kills: [], matches: [], seen: new Map(), ignored: 0 };
  const touch = (p: LogPlayer) => {
    if (!p.steamId) return undefined;
    out.seen.set(p.steamId, p.name);
    let entry = state.players[p.steamId];
    if (!entry) {
      entry = { name: p.name, team: p.team, rounds: 0, roundKills: 0 };
      state.players[p.steamId] = entry;
    }
    entry.name = p.name;
    entry.left = false;
    return entry;
  };
  const finish = (at: number, map: string, ct: number, t: number) => {
    const rounds = Math.max(1, state.round);
    const team = (side: string): MatchParticipant[] =>
      Object.entries(state.players)
        .filter(([, p]) => p.team === side && (p.rounds > 0 || state.round === 0))
        .map(([steamId, p]) => ({
          steamId,
          name: p.name,
          participation: Math.min(1, state.round === 0 ? 1 : p.rounds / rounds),
        }));
    const team1 = team('CT');
    const team2 = team('TERRORIST');
    if (team1.length > 0 && team2.length > 0) {
      out.matches.push({ map: map || state.map, team1, team2, team1Score: ct, team2Score: t, endedAt: at });
    } else out.ignored++;
    resetMatch(false);
  };
  const resetMatch = (inMatch: boolean) => {
    state.round = 0;
    state.ct = 0;
    state.t = 0;
    state.inMatch = inMatch;
    for (const p of Object.values(state.players)) {
      p.rounds = 0;
      p.roundKills = 0;
    }
  };

  for (const e of events) {
    switch (e.kind) {
      case 'kill': {
        const killer = touch(e.killer);
        const victim = touch(e.victim);
        if (!killer || !victim || !e.killer.steamId || !e.victim.steamId) {
          out.ignored++;
          break;
        }
        if (SIDES.has(e.killer.team)) killer.team = e.killer.team;
        if (SIDES.has(e.victim.team)) victim.team = e.victim.team;
        killer.roundKills++;
        out.kills.push({
          killer: { steamId: e.killer.steamId, name: e.killer.name },
          victim: { steamId: e.victim.steamId, name: e.victim.name },
          weapon: e.weapon,
          headshot: e.flags.includes('headshot'),
          distance: distanceMetres(e.killerPos, e.victimPos),
          round: state.round,
          occurredAt: e.at,
          roundKills: killer.roundKills,
        });
        break;
      }
      case 'round_start':
        if (!state.inMatch && endOnMapChange) resetMatch(true);
        state.round++;
        for (const p of Object.values(state.players)) {
          p.roundKills = 0;
          if (SIDES.has(p.team) && !p.left) p.rounds++;
        }
        break;
      case 'score':
        state.ct = e.ct;
        state.t = e.t;
        break;
      case 'team': {
        const p = touch(e.player);
        if (p) p.team = e.team;
        else out.ignored++;
        break;
      }
      case 'connect':
        if (!touch(e.player)) out.ignored++;
        break;
      case 'disconnect': {
        // A leaver keeps their side and rounds: the match result still rates them, by participation.
        const p = e.player.steamId ? state.players[e.player.steamId] : undefined;
        if (p && !state.inMatch) p.team = '';
        else if (p) p.left = true;
        break;
      }
      case 'match_start':
        resetMatch(true);
        if (e.map) state.map = e.map;
        break;
      case 'map':
        if (endOnMapChange && state.inMatch && state.round > 0) finish(e.at, state.map, state.ct, state.t);
        state.map = e.map;
        state.players = {};
        break;
      case 'game_over': {
        // The Game Over line prints CT:T; when the running score (from `(CT "x") (T "y")` lines)
        // says the other order, trust the running score, which names its sides.
        const swapped = e.ct === state.t && e.t === state.ct && state.ct !== state.t;
        finish(e.at, e.map, swapped ? e.t : e.ct, swapped ? e.ct : e.t);
        break;
      }
      case 'log_closed':
        if (endOnMapChange && state.inMatch && state.round > 0) finish(e.at, state.map, state.ct, state.t);
        break;
      case 'round_end':
      case 'other':
        break;
    }
  }
  return out;
}
