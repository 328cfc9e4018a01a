import { isSide, judgeKill, matchCounts } from '../../engines/counting.js';
import type { PlayerEvent } from './parsers/log-events.js';
import { distanceMetres, type LogEvent, type LogPlayer } from './parsers/log-line.js';
import { emptyRoster, forget, isFake, omit, remember, settle, type Roster } from './roster.js';

/**
 * The state of one server's log stream, carried from batch to batch (stored per server in
 * `ingest_state`), and the rules that turn its events into counted kills and match results. Pure:
 * the same code serves HTTP and UDP, CS2, CS:GO and CS 1.6. What counts is engines/counting.ts.
 *
 * Rounds: a round starts at `Round_Start` (not during warm-up) and is numbered by the server's own
 * counter (`MatchStatus … RoundsPlayed: n` in CS2; rounds counted since the match started
 * otherwise). Its kills are held until the round is settled: they count when the next round
 * starts, at the end of the match, or at a map change; they are void when the server voids the
 * round first (`Match_Start`, `Game_Commencing`, `Restart_Round_(…)`, `Warmup_Start`, a restored
 * backup `Match_Reloaded`). A kill therefore reaches the feed when the round after it starts.
 *
 * Matches: CS2 and CS:GO end one at `Game Over`; CS 1.6 at its end-of-map pair
 * `Team "CT" scored …` / `Team "TERRORIST" scored …`. A map change or a restart before that
 * abandons the match (its counted rounds' kills stay; nobody is rated). Sides swap at halftime
 * and in overtime: a swap is when every player of the last round is on the other side at the next
 * round start; players keep their team through it. Participation = counted rounds in which the
 * player was on a side / counted rounds of the match; a player who left early keeps their team
 * and rounds and is rated by that share (a leaver on the losing side takes the full loss: elo.ts).
 */
export interface PendingKill {
  killer: Seen;
  victim: Seen;
  weapon: string;
  headshot: boolean;
  distance: number;
  at: number;
}
/** a player as a line showed them: raw id, SteamID64 or null, name, side */
interface Seen {
  id: string;
  steamId: string | null;
  name: string;
  team: string;
}

/** a counted player on a side */
interface OnSide {
  side: string;
  name: string;
  id: string;
}

interface Round {
  number: number;
  /** 0 before the first side swap of the match, 1 after it, and so on */
  parity: number;
  /** SteamID64 -> side, for every counted player on a side during the round */
  sides: Record<string, OnSide>;
  kills: PendingKill[];
  /** kills of the round told as provisional so far (absent in states stored before they were told) */
  told?: number;
}

interface MatchPlayer {
  name: string;
  rounds: number;
  /** the player's team as the side they had with parity 0: CT = 0, TERRORIST = 1 */
  team: number;
}

export interface StreamState {
  v: 2;
  map: string;
  warmup: boolean;
  /** the server writes `MatchStatus` lines: its RoundsPlayed numbers the rounds */
  matchStatus: boolean;
  roundsPlayed: number;
  ct: number;
  t: number;
  parity: number;
  /** SteamID64 -> side at the start of the last round, to see a swap */
  lastSides: Record<string, string> | null;
  round: Round | null;
  rounds: number;
  players: Record<string, MatchPlayer>;
  /** SteamID64 -> current side of every connected counted player */
  sides: Record<string, OnSide>;
  roster: Roster;
  /** CS 1.6 end-of-map team scores, as they arrive */
  scored: { ct?: number; t?: number };
}

export const emptyState = (): StreamState => ({
  v: 2,
  map: '',
  warmup: false,
  matchStatus: false,
  roundsPlayed: 0,
  ct: 0,
  t: 0,
  parity: 0,
  lastSides: null,
  round: null,
  rounds: 0,
  players: {},
  sides: {},
  roster: emptyRoster(),
  scored: {},
});

/** A stored state, or a fresh one when it is missing or from an older version. */
export function restoreState(raw: string | undefined): StreamState {
  if (!raw) return emptyState();
  const parsed = JSON.parse(raw) as Partial<StreamState>;
  return parsed.v === 2 ? (parsed as StreamState) : emptyState();
}

export interface KillRecord {
  killer: { steamId: string; name: string };
  victim: { steamId: string; name: string };
  weapon: string;
  headshot: boolean;
  distance: number;
  round: number;
  occurredAt: number;
  /** the killer's frags so far in this round, including this one */
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

/** A player as a live event tells them: SteamID64 only for a counted player (roster rules). */
export interface LivePlayer {
  steamId: string | null;
  name: string;
  team: string;
  /** the hub user, when the sender already resolved it (a plugin's non-Steam player by its link) */
  userId?: number | null;
}

/**
 * What the pipeline tells as it reads the lines (events.ts), in log order: round and match
 * boundaries, chat, and kills as they happen (provisional: they count only when their round is
 * settled, and a voided round takes them back).
 */
export type Happening =
  | { kind: 'round_started'; map: string; round: number }
  | { kind: 'round_ended'; map: string; round: number; kills: number }
  | { kind: 'round_voided'; map: string; round: number; kills: number }
  | { kind: 'match_started'; map: string }
  | { kind: 'match_abandoned'; map: string; rounds: number }
  | {
      kind: 'kill_seen';
      killer: LivePlayer & { steamId: string };
      victim: LivePlayer & { steamId: string };
      weapon: string;
      headshot: boolean;
      round: number;
      at: number;
    }
  | { kind: 'chat'; player: LivePlayer; channel: 'all' | 'team'; text: string; at: number };

export interface StreamOutput {
  kills: KillRecord[];
  matches: MatchRecord[];
  happenings: Happening[];
  /** every counted player (to create hub profiles) */
  seen: Map<string, string>;
  /** events that carried nothing to count (bots, team kills, warm-up, voided rounds, …) */
  ignored: number;
}

/** CS 1.6 ends a match with its end-of-map team scores; CS2 and CS:GO with `Game Over`. */
export const endsOnTeamScores = (game: string): boolean => game === 'cs16';

/** A deathmatch round can run for a whole map; past this many kills it is settled in parts. */
const MAX_ROUND_KILLS = 5000;
const sideBit = (side: string): number => (side === 'CT' ? 0 : 1);
const onSide = (p: LogPlayer, side: string): OnSide => ({ side, name: p.name, id: p.id });

/** Applies events to `state` (mutated) and returns what to store. */
export function applyLogEvents(state: StreamState, events: LogEvent[], teamScoresEnd: boolean): StreamOutput {
  const out: StreamOutput = { kills: [], matches: [], happenings: [], seen: new Map(), ignored: 0 };
  const counted = (p: LogPlayer): string | null =>
    p.steamId && !isFake(state.roster, p.id) ? p.steamId : null;

  /** a match with counted rounds that stops here without a result */
  const abandon = () => {
    if (state.rounds > 0)
      out.happenings.push({ kind: 'match_abandoned', map: state.map, rounds: state.rounds });
  };

  /** the round in play ends without counting: its provisional kills are taken back */
  const voidRound = () => {
    const round = state.round;
    if (!round) return;
    state.round = null;
    out.happenings.push({
      kind: 'round_voided',
      map: state.map,
      round: round.number,
      kills: round.told ?? 0,
    });
  };

  const resetMatch = () => {
    voidRound();
    state.rounds = 0;
    state.players = {};
    state.roundsPlayed = 0;
    state.ct = 0;
    state.t = 0;
    state.parity = 0;
    state.lastSides = null;
    state.scored = {};
  };

  const settleRound = () => {
    const round = state.round;
    if (!round) return;
    state.round = null;
    const fragsInRound = new Map<string, number>();
    const counted = out.kills.length;
    for (const k of round.kills) {
      const killer = k.killer.steamId && !isFake(state.roster, k.killer.id) ? k.killer.steamId : null;
      const victim = k.victim.steamId && !isFake(state.roster, k.victim.id) ? k.victim.steamId : null;
      const verdict = judgeKill(
        { steamId: killer, team: k.killer.team },
        { steamId: victim, team: k.victim.team },
      );
      if (verdict !== 'frag' || !killer || !victim) {
        out.ignored++;
        continue;
      }
      const n = (fragsInRound.get(killer) ?? 0) + 1;
      fragsInRound.set(killer, n);
      out.kills.push({
        killer: { steamId: killer, name: k.killer.name },
        victim: { steamId: victim, name: k.victim.name },
        weapon: k.weapon,
        headshot: k.headshot,
        distance: k.distance,
        round: round.number,
        occurredAt: k.at,
        roundKills: n,
      });
      out.seen.set(killer, k.killer.name);
      out.seen.set(victim, k.victim.name);
    }
    state.rounds++;
    out.happenings.push({
      kind: 'round_ended',
      map: state.map,
      round: round.number,
      kills: out.kills.length - counted,
    });
    for (const [steamId, { side, name, id }] of Object.entries(round.sides)) {
      if (isFake(state.roster, id)) continue;
      const player = (state.players[steamId] ??= { name, rounds: 0, team: 0 });
      player.name = name;
      player.rounds++;
      player.team = (sideBit(side) + round.parity) % 2;
      out.seen.set(steamId, name);
    }
  };

  const finish = (at: number, map: string, ct: number, t: number) => {
    settleRound();
    const total = Math.max(1, state.rounds);
    const team = (bit: number): MatchParticipant[] =>
      Object.entries(state.players)
        .filter(([, p]) => p.rounds > 0 && p.team === bit)
        .map(([steamId, p]) => ({ steamId, name: p.name, participation: Math.min(1, p.rounds / total) }));
    const team1 = team(state.parity % 2);
    const team2 = team((state.parity + 1) % 2);
    if (matchCounts(team1, team2)) {
      out.matches.push({ map: map || state.map, team1, team2, team1Score: ct, team2Score: t, endedAt: at });
    } else {
      out.ignored++;
      abandon();
    }
    resetMatch();
  };

  /**
   * A kill told as it happens, judged by the rules that count it at settlement with what the roster
   * knows now (an id found fake before the round ends is then not counted after all).
   */
  const tellKill = (round: Round, k: PendingKill) => {
    const killer = k.killer.steamId && !isFake(state.roster, k.killer.id) ? k.killer.steamId : null;
    const victim = k.victim.steamId && !isFake(state.roster, k.victim.id) ? k.victim.steamId : null;
    if (!killer || !victim) return;
    if (
      judgeKill({ steamId: killer, team: k.killer.team }, { steamId: victim, team: k.victim.team }) !== 'frag'
    )
      return;
    round.told = (round.told ?? 0) + 1;
    out.happenings.push({
      kind: 'kill_seen',
      killer: { steamId: killer, name: k.killer.name, team: k.killer.team },
      victim: { steamId: victim, name: k.victim.name, team: k.victim.team },
      weapon: k.weapon,
      headshot: k.headshot,
      round: round.number,
      at: k.at,
    });
  };

  /** a counted player on a side takes part in the round in play */
  const joinRound = (p: LogPlayer) => {
    const steamId = counted(p);
    if (steamId && state.round && isSide(p.team)) state.round.sides[steamId] = onSide(p, p.team);
  };

  const onPlayerEvent = (e: PlayerEvent) => {
    switch (e.kind) {
      case 'kill': {
        remember(state.roster, e.killer);
        remember(state.roster, e.victim);
        for (const p of [e.killer, e.victim]) {
          const s = counted(p);
          if (s && isSide(p.team)) state.sides[s] = onSide(p, p.team);
        }
        if (!state.round || e.killer.uid === e.victim.uid) {
          out.ignored++;
          break;
        }
        joinRound(e.killer);
        joinRound(e.victim);
        const seen = (p: LogPlayer): Seen => ({ id: p.id, steamId: p.steamId, name: p.name, team: p.team });
        const kill: PendingKill = {
          killer: seen(e.killer),
          victim: seen(e.victim),
          weapon: e.weapon,
          headshot: e.flags.includes('headshot'),
          distance: distanceMetres(e.killerPos, e.victimPos),
          at: e.at,
        };
        state.round.kills.push(kill);
        tellKill(state.round, kill);
        if (state.round.kills.length >= MAX_ROUND_KILLS) {
          const { number, parity, sides } = state.round;
          settleRound();
          state.round = { number, parity, sides: { ...sides }, kills: [] };
        }
        break;
      }
      case 'rename': {
        remember(state.roster, e.player, e.newName);
        const s = counted(e.player);
        const present = s ? state.sides[s] : undefined;
        if (present) present.name = e.newName;
        break;
      }
      case 'team': {
        remember(state.roster, e.player);
        const s = counted(e.player);
        if (s && isSide(e.team)) state.sides[s] = onSide(e.player, e.team);
        else if (s) state.sides = omit(state.sides, s);
        break;
      }
      case 'connect':
      case 'entered':
        remember(state.roster, e.player);
        break;
      case 'disconnect': {
        forget(state.roster, e.player);
        const s = counted(e.player);
        if (s) state.sides = omit(state.sides, s);
        break;
      }
      case 'chat':
        remember(state.roster, e.player);
        out.happenings.push({
          kind: 'chat',
          player: { steamId: counted(e.player), name: e.player.name, team: e.player.team },
          channel: e.channel,
          text: e.text,
          at: e.at,
        });
        break;
      case 'suicide':
        remember(state.roster, e.player);
        out.ignored++;
        break;
      case 'action':
        break;
    }
  };

  for (const e of events) {
    switch (e.kind) {
      case 'ambiguous': {
        const event = settle(state.roster, e.options);
        if (event) onPlayerEvent(event);
        else out.ignored++;
        break;
      }
      case 'kill':
      case 'suicide':
      case 'chat':
      case 'rename':
      case 'team':
      case 'connect':
      case 'entered':
      case 'disconnect':
      case 'action':
        onPlayerEvent(e);
        break;
      case 'round_start': {
        settleRound();
        if (state.warmup) break;
        const sides: Record<string, OnSide> = {};
        for (const [s, p] of Object.entries(state.sides))
          if (!isFake(state.roster, p.id)) sides[s] = { ...p };
        const now = Object.fromEntries(Object.entries(sides).map(([s, p]) => [s, p.side]));
        const last = state.lastSides;
        if (last) {
          const both = Object.keys(now).filter((s) => last[s] !== undefined);
          if (both.length >= 2 && both.every((s) => last[s] !== now[s])) state.parity++;
        }
        state.lastSides = now;
        state.round = {
          number: (state.matchStatus ? state.roundsPlayed : state.rounds) + 1,
          parity: state.parity,
          sides,
          kills: [],
        };
        out.happenings.push({ kind: 'round_started', map: state.map, round: state.round.number });
        break;
      }
      case 'round_end':
        break;
      case 'restart':
      case 'warmup_start':
        abandon();
        resetMatch();
        if (e.kind === 'warmup_start') state.warmup = true;
        break;
      case 'match_start':
        abandon();
        resetMatch();
        if (e.map) state.map = e.map;
        out.happenings.push({ kind: 'match_started', map: state.map });
        break;
      case 'warmup_end':
        state.warmup = false;
        break;
      case 'match_reloaded':
        voidRound();
        break;
      case 'match_status':
        state.matchStatus = true;
        state.roundsPlayed = Math.max(0, e.roundsPlayed);
        state.ct = e.ct;
        state.t = e.t;
        break;
      case 'score':
        state.ct = e.ct;
        state.t = e.t;
        break;
      case 'team_scored':
        if (!teamScoresEnd) break;
        if (e.team === 'CT') state.scored.ct = e.score;
        else state.scored.t = e.score;
        if (state.scored.ct !== undefined && state.scored.t !== undefined) {
          finish(e.at, state.map, state.scored.ct, state.scored.t);
        }
        break;
      case 'game_over': {
        // Game Over prints CT:T; when the running score (which names its sides) says the other
        // order, trust the running score.
        const swapped = e.ct === state.t && e.t === state.ct && state.ct !== state.t;
        finish(e.at, e.map, swapped ? e.t : e.ct, swapped ? e.ct : e.t);
        break;
      }
      case 'map':
        settleRound();
        abandon();
        resetMatch();
        state.warmup = false;
        state.matchStatus = false;
        state.map = e.map;
        state.sides = {};
        break;
      case 'log_closed':
      case 'other':
        break;
    }
  }
  return out;
}
