import { STEAM_ID64_BASE } from '../../engines/steam-id.js';
import type { Rng } from '../../seed/random.js';
import { switched, token, type Participant, type Side } from './log-format.js';

/** A hub account the demo server seats: its Steam id links the log's player to the profile. */
export interface DemoPlayer {
  name: string;
  /** SteamID64 */
  steamId: string;
}

/** What one match came to, told when its `Game Over` line is written. */
export interface MatchSummary {
  number: number;
  map: string;
  ct: number;
  t: number;
  kills: number;
  headshots: number;
  chat: number;
}

/** Rounds a side must win: short matches, so a newcomer sees one end within a minute. */
export const ROUNDS_TO_WIN = 3;
/** A round in which nobody is eliminated ends on the bomb or the clock after this many steps. */
const MAX_ROUND_STEPS = 14;
const MAPS = ['de_inferno', 'de_mirage', 'de_nuke', 'de_ancient', 'de_anubis', 'de_dust2'] as const;
const WEAPONS: Record<Side, readonly string[]> = {
  CT: ['m4a1_silencer', 'm4a1', 'famas', 'awp', 'usp_silencer', 'deagle', 'mp9', 'ssg08'],
  TERRORIST: ['ak47', 'galilar', 'awp', 'glock', 'deagle', 'mac10', 'ssg08', 'tec9'],
};
const SAY = ['nice shot', 'wp', 'ez', 'close one', 'ns', 'what a flick', 'lucky', 'gg wp'];
const SAY_TEAM = ['rotate B', 'one A long', 'eco next', 'save', 'rush b', 'I have AWP', 'smoke mid'];

interface Seat extends Participant {
  side: Side;
  alive: boolean;
  /** how often this player wins a duel and hits the head: 0.6 to 1.4 */
  skill: number;
}

type Phase = 'boot' | 'match_start' | 'round_start' | 'fight' | 'after_match' | 'map_change';

/**
 * A CS2 server playing 5v5 (or smaller) matches among `players`, one step at a time: each `step()`
 * returns the log lines the server writes in that moment (without timestamps, see log-format.ts).
 * Everything it does is drawn from `rng`, so one seed always plays the same matches.
 *
 * A match: players on sides, `Match_Start`, rounds (`Round_Start`, kills with weapons and
 * headshots, chat, then the round's win, the teams' scores, `MatchStatus` and `Round_End`) until a
 * side has won ROUNDS_TO_WIN rounds, then `Game Over`, some `gg`, and the next map. These are the
 * lines the ingest parser settles rounds and matches on (match-state.ts): a round's kills count
 * when the next round starts or the match ends.
 */
export class DemoGame {
  private readonly seats: Seat[];
  private phase: Phase = 'boot';
  private mapIndex = 0;
  private matchNumber = 0;
  private matchStartedAt = 0;
  private score = { CT: 0, TERRORIST: 0 };
  private roundSteps = 0;
  private tally = { kills: 0, headshots: 0, chat: 0 };

  constructor(
    private readonly rng: Rng,
    players: readonly DemoPlayer[],
    private readonly onMatchEnd: (summary: MatchSummary) => void = () => undefined,
  ) {
    if (players.length < 2) throw new Error('a demo match needs two players at least');
    this.seats = players.map((p, i) => ({
      name: p.name.replace(/["<>]/g, '_'),
      uid: i + 2,
      account: `[U:1:${BigInt(p.steamId) - STEAM_ID64_BASE}]`,
      side: 'CT',
      alive: true,
      skill: 0.6 + rng.next() * 0.8,
    }));
  }

  get map(): string {
    return MAPS[this.mapIndex % MAPS.length] ?? 'de_inferno';
  }

  /** The lines of the next moment; `at` (epoch ms) dates the match's length in `Game Over`. */
  step(at: number): string[] {
    switch (this.phase) {
      case 'boot':
        this.phase = 'match_start';
        return [
          `Loading map "${this.map}"`,
          ...this.connectAll(),
          ...this.pickSides(),
          this.chat('say', 'gl hf'),
        ];
      case 'map_change':
        this.mapIndex++;
        this.phase = 'match_start';
        return [
          `Loading map "${this.map}"`,
          ...this.seats.map((s) => `${token(s, '')} entered the game`),
          ...this.pickSides(),
        ];
      case 'match_start':
        return this.startMatch(at);
      case 'round_start':
        for (const s of this.seats) s.alive = true;
        this.roundSteps = 0;
        this.phase = 'fight';
        return ['World triggered "Round_Start"'];
      case 'fight':
        return this.fight(at);
      case 'after_match':
        this.phase = 'map_change';
        return [this.chat('say', 'gg'), this.chat('say', 'gg wp')];
    }
  }

  private connectAll(): string[] {
    return [
      '"SourceTV<0><BOT><>" connected, address "(unknown)"',
      '"SourceTV<0><BOT><>" entered the game',
      ...this.seats.flatMap((s) => [
        `${token(s, '')} connected, address "203.0.113.${s.uid}:27005"`,
        `${token(s, '')} entered the game`,
      ]),
    ];
  }

  /** New teams every match (shuffled by the seed), so the ladder sees many pairings. */
  private pickSides(): string[] {
    const order = this.seats.map((s) => ({ s, key: this.rng.next() })).sort((a, b) => a.key - b.key);
    const half = Math.ceil(order.length / 2);
    return order.map(({ s }, i) => {
      s.side = i < half ? 'CT' : 'TERRORIST';
      return switched(s, 'Unassigned', s.side);
    });
  }

  private startMatch(at: number): string[] {
    this.matchNumber++;
    this.matchStartedAt = at;
    this.score = { CT: 0, TERRORIST: 0 };
    this.tally = { kills: 0, headshots: 0, chat: 0 };
    this.phase = 'round_start';
    return [
      `World triggered "Match_Start" on "${this.map}"`,
      'MatchStatus: Team playing "CT": Demo Blue',
      'MatchStatus: Team playing "TERRORIST": Demo Orange',
      `MatchStatus: Score: 0:0 on map "${this.map}" RoundsPlayed: 0`,
    ];
  }

  private alive(side: Side): Seat[] {
    return this.seats.filter((s) => s.side === side && s.alive);
  }

  /** One moment of a round: a kill or two, now and then a chat line, maybe the round's end. */
  private fight(at: number): string[] {
    const lines: string[] = [];
    this.roundSteps++;
    const kills = this.rng.chance(0.75) ? (this.rng.chance(0.2) ? 2 : 1) : 0;
    for (let i = 0; i < kills; i++) {
      const line = this.kill();
      if (line) lines.push(line);
    }
    if (this.rng.chance(0.12)) {
      const team = this.rng.chance(0.5);
      lines.push(this.chat(team ? 'say_team' : 'say', this.rng.pick(team ? SAY_TEAM : SAY)));
    }
    const ct = this.alive('CT').length;
    const t = this.alive('TERRORIST').length;
    if (ct === 0 || t === 0) lines.push(...this.endRound(ct === 0 ? 'TERRORIST' : 'CT', 'eliminated', at));
    else if (this.roundSteps >= MAX_ROUND_STEPS) {
      const bombed = this.rng.chance(0.5);
      lines.push(...this.endRound(bombed ? 'TERRORIST' : 'CT', bombed ? 'bombed' : 'saved', at));
    }
    return lines;
  }

  private kill(): string | undefined {
    const ct = this.alive('CT');
    const t = this.alive('TERRORIST');
    if (ct.length === 0 || t.length === 0) return undefined;
    const strength = (seats: Seat[]) => seats.reduce((sum, s) => sum + s.skill, 0);
    const side: Side = this.rng.next() * (strength(ct) + strength(t)) < strength(ct) ? 'CT' : 'TERRORIST';
    const team = side === 'CT' ? ct : t;
    const killer = team[this.rng.weighted(team.map((s) => s.skill))] ?? team[0];
    const victim = this.rng.pick(side === 'CT' ? t : ct);
    if (!killer) return undefined;
    victim.alive = false;
    const headshot = this.rng.chance(0.2 + 0.25 * killer.skill);
    this.tally.kills++;
    if (headshot) this.tally.headshots++;
    const weapon = this.rng.pick(WEAPONS[side]);
    return `${token(killer, killer.side)} ${this.position()} killed ${token(victim, victim.side)} ${this.position()} with "${weapon}"${headshot ? ' (headshot)' : ''}`;
  }

  /** `[x y z]` in Source units somewhere on a map. */
  private position(): string {
    return `[${this.rng.int(-2400, 2400)} ${this.rng.int(-2400, 2400)} ${this.rng.int(-160, 320)}]`;
  }

  private chat(verb: 'say' | 'say_team', text: string): string {
    const seat = this.rng.pick(this.seats);
    this.tally.chat++;
    return `${token(seat, seat.side)} ${verb} "${text}"`;
  }

  private endRound(winner: Side, how: 'eliminated' | 'bombed' | 'saved', at: number): string[] {
    this.score[winner]++;
    const { CT: ct, TERRORIST: t } = this.score;
    const notice =
      how === 'bombed'
        ? 'SFUI_Notice_Target_Bombed'
        : how === 'saved'
          ? 'SFUI_Notice_Target_Saved'
          : winner === 'CT'
            ? 'SFUI_Notice_CTs_Win'
            : 'SFUI_Notice_Terrorists_Win';
    const players = (side: Side) => this.seats.filter((s) => s.side === side).length;
    const lines = [
      `Team "${winner}" triggered "${notice}" (CT "${ct}") (T "${t}")`,
      `Team "CT" scored "${ct}" with "${players('CT')}" players`,
      `Team "TERRORIST" scored "${t}" with "${players('TERRORIST')}" players`,
      `MatchStatus: Score: ${ct}:${t} on map "${this.map}" RoundsPlayed: ${ct + t}`,
      'World triggered "Round_End"',
    ];
    if (this.score[winner] < ROUNDS_TO_WIN) {
      this.phase = 'round_start';
      return lines;
    }
    const minutes = Math.floor((at - this.matchStartedAt) / 60_000);
    lines.push(`Game Over: competitive  ${this.map} score ${ct}:${t} after ${minutes} min`);
    this.phase = 'after_match';
    this.onMatchEnd({ number: this.matchNumber, map: this.map, ct, t, ...this.tally });
    return lines;
  }
}
