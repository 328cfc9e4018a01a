import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DemoGame,
  ROUNDS_TO_WIN,
  type DemoPlayer,
  type MatchSummary,
} from '../../src/modules/demo-server/game.js';
import { stampLine } from '../../src/modules/demo-server/log-format.js';
import { parseLogBatch } from '../../src/modules/ingest/parsers/cs2-log.js';
import type { LogEvent } from '../../src/modules/ingest/parsers/log-line.js';
import { applyLogEvents, emptyState, type StreamOutput } from '../../src/modules/ingest/match-state.js';
import { Rng } from '../../src/seed/random.js';

// Any date: the game writes the clock it is given.
const T0 = Date.UTC(2031, 4, 6, 21, 59, 58, 990);
const PLAYERS: DemoPlayer[] = Array.from({ length: 10 }, (_, i) => ({
  name: `demo_${i + 1}`,
  steamId: String(76561198000000000n + BigInt(i * 7)),
}));

/** `steps` moments of a game on seed 1, 400 ms apart, as the HTTP log stream writes them. */
function play(steps: number, players = PLAYERS, seed = 1) {
  const summaries: MatchSummary[] = [];
  const game = new DemoGame(new Rng(seed), players, (s) => summaries.push(s));
  const lines: string[] = [];
  for (let i = 0; i < steps; i++) {
    const at = T0 + i * 400;
    lines.push(...game.step(at).map((body, n) => stampLine(at + n, body)));
  }
  return { lines, summaries };
}

describe('demo CS2 server', () => {
  it('writes only lines the CS2 parser reads as a real server wrote them', () => {
    const { lines } = play(400);
    const parsed = parseLogBatch(lines.join('\n'));
    assert.deepEqual(parsed.rejected, []);
    assert.match(lines[0] ?? '', /^05\/06\/2031 - 21:59:58\.990 - Loading map "de_inferno"$/);
    const kinds = new Map<string, number>();
    for (const e of parsed.events) kinds.set(e.kind, (kinds.get(e.kind) ?? 0) + 1);
    // every line is read as exactly one event: no forged or ambiguous reading
    assert.equal(kinds.get('ambiguous'), undefined);
    for (const kind of [
      'map',
      'connect',
      'entered',
      'team',
      'match_start',
      'match_status',
      'round_start',
      'kill',
      'chat',
      'score',
      'team_scored',
      'round_end',
      'game_over',
    ])
      assert.ok((kinds.get(kind) ?? 0) > 0, `${kind} lines: ${JSON.stringify([...kinds])}`);
    const kills = parsed.events.filter((e): e is Extract<LogEvent, { kind: 'kill' }> => e.kind === 'kill');
    assert.ok(kills.some((k) => k.flags.includes('headshot')));
    assert.ok(kills.every((k) => k.killer.steamId && k.victim.steamId && k.killer.team !== k.victim.team));
    assert.ok(new Set(kills.map((k) => k.weapon)).size > 5, 'several weapons');
    const chat = lines.filter((l) => / say(_team)? "/.test(l));
    assert.ok(chat.some((l) => l.includes(' say_team "')) && chat.some((l) => l.includes(' say "')));
  });

  it('plays matches the ingest state machine settles: kills counted, matches rated between the demo players', () => {
    const { lines, summaries } = play(400);
    const state = emptyState();
    const out: StreamOutput = applyLogEvents(state, parseLogBatch(lines.join('\n')).events, false);
    assert.ok(summaries.length >= 3, `${summaries.length} matches in 160 s`);
    assert.deepEqual(
      out.matches.map((m) => [m.map, m.team1Score, m.team2Score]),
      summaries.map((s) => [s.map, s.ct, s.t]),
    );
    for (const s of summaries) assert.equal(Math.max(s.ct, s.t), ROUNDS_TO_WIN);
    const ids = new Set(PLAYERS.map((p) => p.steamId));
    for (const m of out.matches) {
      assert.equal(m.team1.length + m.team2.length, 10);
      for (const p of [...m.team1, ...m.team2]) assert.ok(ids.has(p.steamId));
    }
    // every kill of a finished match counts (none voided, none a team kill)
    const killed = summaries.reduce((sum, s) => sum + s.kills, 0);
    assert.ok(out.kills.length >= killed, `${out.kills.length} counted, ${killed} in finished matches`);
    assert.equal(
      out.kills.filter((k) => k.headshot).length >= summaries.reduce((sum, s) => sum + s.headshots, 0),
      true,
    );
  });

  it('is a few kills a second, and the same seed plays the same game', () => {
    const { lines } = play(100);
    const kills = lines.filter((l) => l.includes(' killed ')).length;
    // 100 steps of 400 ms = 40 s
    assert.ok(kills / 40 >= 1.5 && kills / 40 <= 4, `${kills} kills in 40 s`);
    assert.deepEqual(play(100).lines, lines);
    assert.notDeepEqual(play(100, PLAYERS, 2).lines, lines);
  });

  it('seats as few as two players', () => {
    const { lines, summaries } = play(200, PLAYERS.slice(0, 2));
    assert.ok(summaries.length > 0);
    assert.deepEqual(parseLogBatch(lines.join('\n')).rejected, []);
    assert.throws(() => new DemoGame(new Rng(1), PLAYERS.slice(0, 1)));
  });
});
