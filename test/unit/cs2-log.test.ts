import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLogBatch } from '../../src/modules/ingest/parsers/cs2-log.js';
import { distanceMetres, parseLogLine, type LogEvent } from '../../src/modules/ingest/parsers/log-line.js';
import { applyLogEvents, emptyState } from '../../src/modules/ingest/match-state.js';
import { MAX_LOG_NUMBER, numbersOutOfBounds } from '../../src/modules/ingest/parsers/event-bounds.js';
import { accountOf as toSteamId64 } from '../../src/engines/counting.js';

const event = (line: string): LogEvent => {
  const r = parseLogLine(line);
  assert.ok(r.ok, `${line}: ${r.ok ? '' : r.reason}`);
  return r.event;
};
const AT = Date.UTC(2026, 10, 21, 19, 34, 51);

describe('Steam ID conversion', () => {
  it('converts [U:1:N], STEAM_X:Y:Z and SteamID64 exactly', () => {
    assert.equal(toSteamId64('[U:1:12345]'), '76561197960278073');
    assert.equal(toSteamId64('STEAM_0:1:12345'), '76561197960290419');
    assert.equal(toSteamId64('STEAM_1:1:12345'), '76561197960290419');
    assert.equal(toSteamId64('76561197960290419'), '76561197960290419');
    assert.equal(toSteamId64('[U:1:4294967295]'), '76561202255233023');
    for (const bad of [
      'BOT',
      'STEAM_ID_LAN',
      'STEAM_ID_PENDING',
      'VALVE_ID_LAN',
      'HLTV',
      'STEAM_2:0:2052157424',
      'STEAM_3:1:5',
      'VALVE_0:1:5',
      'STEAM_0:0:0',
      '[U:1:0]',
      '[U:1:4294967296]',
      '[A:1:5]',
      '',
      '7656119796026572',
    ])
      assert.equal(toSteamId64(bad), null, bad);
  });
});

describe('CS2 log lines', () => {
  it('parses a kill with ids, teams, positions, weapon and headshot', () => {
    const e = event(
      'L 11/21/2026 - 19:34:51: "Player<2><[U:1:12345]><CT>" [-1117 1026 -94] killed "Enemy<3><[U:1:67890]><TERRORIST>" [-1411 1213 -95] with "ak47" (headshot)',
    );
    assert.deepEqual(e, {
      kind: 'kill',
      at: AT,
      killer: { name: 'Player', uid: '2', id: '[U:1:12345]', steamId: '76561197960278073', team: 'CT' },
      killerPos: { x: -1117, y: 1026, z: -94 },
      victim: { name: 'Enemy', uid: '3', id: '[U:1:67890]', steamId: '76561197960333618', team: 'TERRORIST' },
      victimPos: { x: -1411, y: 1213, z: -95 },
      weapon: 'ak47',
      flags: ['headshot'],
    });
    assert.equal(distanceMetres(e.killerPos, e.victimPos), 8.85);
  });

  it('accepts the HTTP stream variant with milliseconds and without "L "', () => {
    const e = event(
      '11/21/2026 - 19:34:51.250 - "A<2><[U:1:1]><CT>" [0 0 0] killed "B<3><[U:1:2]><TERRORIST>" [100 0 0] with "awp" (headshot penetrated noscope)',
    );
    assert.equal(e.at, AT + 250);
    assert.ok(e.kind === 'kill');
    assert.deepEqual(e.flags, ['headshot', 'penetrated', 'noscope']);
    assert.equal(distanceMetres(e.killerPos, e.victimPos), 2.54);
    const plain = event('11/21/2026 - 19:34:51: World triggered "Round_Start"');
    assert.deepEqual(plain, { kind: 'round_start', at: AT });
  });

  it('keeps names with quotes, brackets, angle brackets and unicode', () => {
    const e = event(
      'L 11/21/2026 - 19:34:51: "Ma"x [1] <3 ☃ 日本<7><[U:1:42]><CT>" [1 2 3] killed "<<Zoë>> "quoted"<8><[U:1:43]><TERRORIST>" [1 2 3] with "knife_karambit"',
    );
    assert.ok(e.kind === 'kill');
    assert.equal(e.killer.name, 'Ma"x [1] <3 ☃ 日本');
    assert.equal(e.killer.steamId, '76561197960265770');
    assert.equal(e.victim.name, '<<Zoë>> "quoted"');
    assert.deepEqual(e.flags, []);
    assert.equal(e.weapon, 'knife_karambit');
  });

  it('marks bots with a null Steam ID', () => {
    const e = event(
      'L 11/21/2026 - 19:34:51: "Bot Ted<4><BOT><TERRORIST>" [0 0 0] killed "A<2><[U:1:1]><CT>" [0 0 0] with "glock"',
    );
    assert.ok(e.kind === 'kill');
    assert.equal(e.killer.steamId, null);
  });

  it('parses team switches, connects, disconnects, rounds, match start, scores and game over', () => {
    assert.deepEqual(
      event('L 11/21/2026 - 19:34:51: "A<2><[U:1:1]>" switched from team <Unassigned> to <CT>'),
      {
        kind: 'team',
        at: AT,
        player: { name: 'A', uid: '2', id: '[U:1:1]', steamId: '76561197960265729', team: '' },
        team: 'CT',
      },
    );
    assert.equal(
      event('L 11/21/2026 - 19:34:51: "A<2><[U:1:1]><>" connected, address "10.0.0.1:27005"').kind,
      'connect',
    );
    assert.equal(
      event(
        'L 11/21/2026 - 19:34:51: "A<2><[U:1:1]><CT>" disconnected (reason "NETWORK_DISCONNECT_DISCONNECT_BY_USER")',
      ).kind,
      'disconnect',
    );
    assert.deepEqual(event('L 11/21/2026 - 19:34:51: World triggered "Match_Start" on "de_inferno"'), {
      kind: 'match_start',
      at: AT,
      map: 'de_inferno',
    });
    assert.deepEqual(event('L 11/21/2026 - 19:34:51: World triggered "Round_End"'), {
      kind: 'round_end',
      at: AT,
    });
    assert.deepEqual(
      event(
        'L 11/21/2026 - 19:34:51: Team "TERRORIST" triggered "SFUI_Notice_Terrorists_Win" (CT "3") (T "5")',
      ),
      { kind: 'score', at: AT, ct: 3, t: 5 },
    );
    assert.deepEqual(
      event('L 11/21/2026 - 19:34:51: Game Over: competitive mg_active de_inferno score 13:11 after 41 min'),
      {
        kind: 'game_over',
        at: AT,
        map: 'de_inferno',
        ct: 13,
        t: 11,
      },
    );
    assert.equal(event('L 11/21/2026 - 19:34:51: "A<2><[U:1:1]><CT>" purchased "ak47"').kind, 'other');
  });

  it('rejects non-log lines and impossible timestamps with a reason, not the batch', () => {
    const batch = parseLogBatch(
      [
        'L 11/21/2026 - 19:34:51: World triggered "Round_Start"',
        'hello world',
        'L 02/30/2026 - 19:34:51: World triggered "Round_Start"',
        '',
        'L 11/21/2026 - 25:00:00: World triggered "Round_Start"',
        'L 11/21/2026 - 19:34:52: World triggered "Round_End"\r',
      ].join('\n'),
    );
    assert.equal(batch.events.length, 2);
    assert.deepEqual(
      batch.rejected.map((r) => [r.line, r.reason]),
      [
        [2, 'not a log line (expected "L MM/DD/YYYY - HH:MM:SS: …")'],
        [3, 'invalid timestamp'],
        [5, 'invalid timestamp'],
      ],
    );
  });
});

describe('numbers out of bounds', () => {
  it('names the first number beyond the bound by its path, skips times, refuses non-finite numbers', () => {
    const bound = `(±${MAX_LOG_NUMBER})`;
    assert.equal(
      numbersOutOfBounds({ kind: 'score', at: 1e15, ct: MAX_LOG_NUMBER, t: -MAX_LOG_NUMBER }),
      null,
    );
    assert.equal(
      numbersOutOfBounds({ kind: 'score', at: 1, ct: MAX_LOG_NUMBER + 1 }),
      `ct is out of range ${bound}`,
    );
    assert.equal(
      numbersOutOfBounds({ kind: 'kill', at: 1, killerPos: { x: 0, y: -1e9, z: 0 }, victimPos: { x: 1e9 } }),
      `killerPos.y is out of range ${bound}`,
    );
    assert.equal(numbersOutOfBounds({ a: { b: { c: Number.NaN } } }), `a.b.c is out of range ${bound}`);
    assert.equal(numbersOutOfBounds({ p: { at: Infinity, x: Infinity } }), `p.x is out of range ${bound}`);
    assert.equal(numbersOutOfBounds(Object.create({ inherited: 1e99 }) as object), null);
  });
});

describe('log stream state', () => {
  const lines = (...body: string[]) =>
    parseLogBatch(body.map((b) => `L 11/21/2026 - 19:34:51: ${b}`).join('\n')).events;

  it('numbers rounds, counts kills per round and rates a match at Game Over with participation', () => {
    const state = emptyState();
    const out = applyLogEvents(
      state,
      lines(
        'World triggered "Match_Start" on "de_dust2"',
        '"A<2><[U:1:1]>" switched from team <Unassigned> to <CT>',
        '"B<3><[U:1:2]>" switched from team <Unassigned> to <TERRORIST>',
        '"C<4><[U:1:3]>" switched from team <Unassigned> to <TERRORIST>',
        'World triggered "Round_Start"',
        '"A<2><[U:1:1]><CT>" [0 0 0] killed "B<3><[U:1:2]><TERRORIST>" [0 0 0] with "ak47" (headshot)',
        '"A<2><[U:1:1]><CT>" [0 0 0] killed "C<4><[U:1:3]><TERRORIST>" [0 0 0] with "ak47"',
        'Team "CT" triggered "SFUI_Notice_CTs_Win" (CT "1") (T "0")',
        '"C<4><[U:1:3]><TERRORIST>" disconnected (reason "Disconnect")',
        'World triggered "Round_Start"',
        '"Bot<9><BOT><TERRORIST>" [0 0 0] killed "A<2><[U:1:1]><CT>" [0 0 0] with "glock"',
        'Team "TERRORIST" triggered "SFUI_Notice_Terrorists_Win" (CT "1") (T "1")',
        'World triggered "Round_Start"',
        '"A<2><[U:1:1]><CT>" [0 0 0] killed "B<3><[U:1:2]><TERRORIST>" [0 0 0] with "knife"',
        'Game Over: competitive mg_active de_dust2 score 2:1 after 3 min',
      ),
      false,
    );
    assert.deepEqual(
      out.kills.map((k) => [k.killer.name, k.victim.name, k.round, k.roundKills, k.headshot]),
      [
        ['A', 'B', 1, 1, true],
        ['A', 'C', 1, 2, false],
        ['A', 'B', 3, 1, false],
      ],
    );
    assert.equal(out.ignored, 1);
    assert.equal(out.matches.length, 1);
    const m = out.matches[0];
    assert.ok(m);
    assert.equal(m.map, 'de_dust2');
    assert.deepEqual([m.team1Score, m.team2Score], [2, 1]);
    assert.deepEqual(
      m.team1.map((p) => [p.name, p.participation]),
      [['A', 1]],
    );
    // C left after round 1 (played 1 of 3 rounds) and is still rated, by participation
    assert.deepEqual(
      m.team2.map((p) => [p.name, Math.round(p.participation * 1000) / 1000]),
      [
        ['B', 1],
        ['C', 0.333],
      ],
    );
    assert.equal(state.round, null);
    assert.equal(state.rounds, 0);
  });

  it('trusts the running score when Game Over prints the sides the other way round', () => {
    const out = applyLogEvents(
      emptyState(),
      lines(
        'World triggered "Match_Start" on "de_nuke"',
        '"A<2><[U:1:1]>" switched from team <Unassigned> to <CT>',
        '"B<3><[U:1:2]>" switched from team <Unassigned> to <TERRORIST>',
        'World triggered "Round_Start"',
        'Team "TERRORIST" triggered "SFUI_Notice_Terrorists_Win" (CT "0") (T "1")',
        'Game Over: competitive mg_active de_nuke score 1:0 after 1 min',
      ),
      false,
    );
    assert.deepEqual([out.matches[0]?.team1Score, out.matches[0]?.team2Score], [0, 1]);
  });
});
