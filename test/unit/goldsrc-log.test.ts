import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLogBatch } from '../../src/modules/ingest/parsers/cs2-log.js';
import { parseGoldSrcLine, parseLogPacket } from '../../src/modules/ingest/parsers/goldsrc-log.js';
import { applyLogEvents, emptyState } from '../../src/modules/ingest/match-state.js';

const L = 'L 11/21/2026 - 19:34:51: ';
const AT = Date.UTC(2026, 10, 21, 19, 34, 51);

describe('GoldSrc (CS 1.6) log lines', () => {
  it('parses a kill with STEAM_X:Y:Z ids and no positions', () => {
    const r = parseGoldSrcLine(
      `${L}"Player<2><STEAM_0:1:12345><CT>" killed "[CLAN] Enemy <3><4><STEAM_0:0:67890><TERRORIST>" with "m4a1"`,
    );
    assert.ok(r.ok);
    assert.deepEqual(r.event, {
      kind: 'kill',
      at: AT,
      killer: { name: 'Player', uid: '2', id: 'STEAM_0:1:12345', steamId: '76561197960290419', team: 'CT' },
      killerPos: null,
      victim: {
        name: '[CLAN] Enemy <3>',
        uid: '4',
        id: 'STEAM_0:0:67890',
        steamId: '76561197960401508',
        team: 'TERRORIST',
      },
      victimPos: null,
      weapon: 'm4a1',
      flags: [],
    });
  });

  it('parses joins, connects, round and team triggers and map changes', () => {
    const ev = (b: string) => {
      const r = parseGoldSrcLine(L + b);
      assert.ok(r.ok, b);
      return r.event;
    };
    assert.deepEqual(ev('"P<2><STEAM_0:1:1><>" joined team "TERRORIST"'), {
      kind: 'team',
      at: AT,
      player: { name: 'P', uid: '2', id: 'STEAM_0:1:1', steamId: '76561197960265731', team: '' },
      team: 'TERRORIST',
    });
    assert.equal(ev('"P<2><STEAM_0:1:1><>" connected, address "192.168.1.20:27005"').kind, 'connect');
    assert.equal(ev('"P<2><STEAM_0:1:1><CT>" disconnected').kind, 'disconnect');
    assert.deepEqual(ev('Team "CT" triggered "CTs_Win" (CT "3") (T "0")'), {
      kind: 'score',
      at: AT,
      ct: 3,
      t: 0,
    });
    assert.deepEqual(ev('World triggered "Game_Commencing"'), { kind: 'restart', at: AT });
    assert.deepEqual(ev('World triggered "Restart_Round_(1_second)"'), { kind: 'restart', at: AT });
    assert.deepEqual(ev('Team "CT" scored "7" with "6" players'), {
      kind: 'team_scored',
      at: AT,
      team: 'CT',
      score: 7,
    });
    assert.deepEqual(ev('Started map "de_dust2" (CRC "-1234")'), { kind: 'map', at: AT, map: 'de_dust2' });
    assert.deepEqual(ev('Log file closed'), { kind: 'log_closed', at: AT });
    assert.equal(
      ev('"P<2><STEAM_ID_LAN><CT>" killed "Q<3><STEAM_0:0:1><TERRORIST>" with "deagle"').kind,
      'kill',
    );
  });

  const match = [
    'Started map "de_dust2" (CRC "1")',
    '"A<2><STEAM_0:0:10><>" joined team "CT"',
    '"B<3><STEAM_0:0:20><>" joined team "TERRORIST"',
    'World triggered "Round_Start"',
    '"A<2><STEAM_0:0:10><CT>" killed "B<3><STEAM_0:0:20><TERRORIST>" with "awp"',
    'Team "CT" triggered "CTs_Win" (CT "1") (T "0")',
    'World triggered "Round_Start"',
    'Team "TERRORIST" triggered "Terrorists_Win" (CT "1") (T "1")',
    'World triggered "Round_Start"',
    'Team "TERRORIST" triggered "Terrorists_Win" (CT "1") (T "2")',
  ];
  const replay = (lines: string[]) =>
    applyLogEvents(emptyState(), parseLogBatch(lines.map((b) => L + b).join('\n')).events, true);

  it('ends a match at its end-of-map team scores', () => {
    const out = replay([
      ...match,
      'Team "CT" scored "1" with "1" players',
      'Team "TERRORIST" scored "2" with "1" players',
    ]);
    assert.deepEqual(
      out.matches.map((m) => [
        m.map,
        m.team1.map((p) => p.steamId),
        m.team2.map((p) => p.steamId),
        m.team1Score,
        m.team2Score,
      ]),
      [['de_dust2', ['76561197960265748'], ['76561197960265768'], 1, 2]],
    );
  });

  it('abandons a match cut by a map change: its kills count, nobody is rated', () => {
    const out = replay([...match, 'Loading map "de_inferno"']);
    assert.equal(out.kills.length, 1);
    const [first] = out.kills;
    assert.ok(first);
    assert.deepEqual([first.distance, first.round], [0, 1]);
    assert.deepEqual(out.matches, []);
  });
});

describe('GoldSrc logaddress UDP packets', () => {
  const packet = (type: string, body: string) =>
    Buffer.concat([Buffer.from([0xff, 0xff, 0xff, 0xff]), Buffer.from(type + body + '\n\0', 'utf8')]);

  it('reads the secret of an S packet and the line of an R packet', () => {
    assert.deepEqual(
      parseLogPacket(packet('S', `12345678901234567890123456789012${L}World triggered "Round_Start"`)),
      {
        secret: '12345678901234567890123456789012',
        line: `${L}World triggered "Round_Start"`,
      },
    );
    assert.deepEqual(parseLogPacket(packet('R', `${L}World triggered "Round_Start"`)), {
      secret: null,
      line: `${L}World triggered "Round_Start"`,
    });
    assert.deepEqual(parseLogPacket(packet('S', `42T00000000DEADBEEF ${L}Log file closed`)), {
      secret: '42',
      line: `${L}Log file closed`,
    });
  });

  it('refuses packets without the header or of another type', () => {
    assert.equal(parseLogPacket(Buffer.from(`R${L}x`)), null);
    assert.equal(parseLogPacket(packet('I', `${L}x`)), null);
    assert.equal(parseLogPacket(packet('S', 'no line here')), null);
    assert.equal(parseLogPacket(Buffer.from([0xff, 0xff])), null);
  });
});
