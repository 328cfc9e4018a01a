import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseLogBatch } from '../../src/modules/ingest/parsers/cs2-log.js';
import { parseLogLine } from '../../src/modules/ingest/parsers/log-line.js';
import { applyLogEvents, emptyState, type StreamState } from '../../src/modules/ingest/match-state.js';

/**
 * Player-controlled text (names, chat, team chat, name changes, clan tags) must never be read as
 * another event. Game logs do not escape it, so these lines are exactly what a server writes.
 */
const L = 'L 11/21/2026 - 19:34:51: ';
const steam = (account: number) => String(76561197960265728n + BigInt(account));
const replay = (lines: string[], state: StreamState = emptyState()) =>
  applyLogEvents(state, parseLogBatch(lines.map((l) => L + l).join('\n')).events, false);
const connect = (name: string, uid: number, account: number) =>
  `"${name}<${uid}><[U:1:${account}]><>" connected, address "203.0.113.7:27005"`;
const side = (name: string, uid: number, account: number, team: string) =>
  `"${name}<${uid}><[U:1:${account}]>" switched from team <Unassigned> to <${team}>`;
const ROUND = 'World triggered "Round_Start"';
const FORGED = `x<2><[U:1:7777]><CT>" [0 0 0] killed "y<3><[U:1:8888]><TERRORIST>" [0 0 0] with "awp`;

describe('structural parsing of player lines', () => {
  it('reads the forged kill in a chat line as chat when the roster knows the speaker', () => {
    const out = replay([
      connect('Chatter', 5, 1),
      side('Chatter', 5, 1, 'CT'),
      ROUND,
      `"Chatter<5><[U:1:1]><CT>" say "${FORGED}"`,
      `"Chatter<5><[U:1:1]><CT>" say_team "${FORGED}"`,
      ROUND,
    ]);
    assert.deepEqual(out.kills, []);
    assert.equal(out.seen.has(steam(7777)), false);
  });

  it('uses no reading of an ambiguous line when the roster cannot settle it', () => {
    const line = `"Chatter<5><[U:1:1]><CT>" say "${FORGED}"`;
    const parsed = parseLogLine(L + line);
    assert.ok(parsed.ok);
    assert.equal(parsed.event.kind, 'ambiguous');
    const out = replay([ROUND, line, ROUND]);
    assert.deepEqual(out.kills, []);
    assert.equal(out.ignored, 1);
  });

  it('reads a forged kill in a name change as the name change', () => {
    const out = replay([
      connect('Old', 5, 1),
      ROUND,
      `"Old<5><[U:1:1]><CT>" changed name to "${FORGED}"`,
      ROUND,
    ]);
    assert.deepEqual(out.kills, []);
    const state = emptyState();
    replay([connect('Old', 5, 1), `"Old<5><[U:1:1]><CT>" changed name to "${FORGED}"`], state);
    assert.deepEqual(state.roster.byUid['5'], ['[U:1:1]', FORGED]);
  });

  it('credits the kill of a player whose name holds a forged token to that player', () => {
    const evil = 'a<9><[U:1:7777]><CT>" killed "b';
    const out = replay([
      connect(evil, 4, 44),
      connect('Victim', 6, 66),
      side(evil, 4, 44, 'CT'),
      side('Victim', 6, 66, 'TERRORIST'),
      ROUND,
      `"${evil}<4><[U:1:44]><CT>" [0 0 0] killed "Victim<6><[U:1:66]><TERRORIST>" [0 0 0] with "ak47"`,
      ROUND,
    ]);
    assert.deepEqual(
      out.kills.map((k) => [k.killer.steamId, k.killer.name, k.victim.steamId]),
      [[steam(44), evil, steam(66)]],
    );
  });

  it('does not let a victim name hand the kill to someone else', () => {
    const bait = 'v<9><[U:1:7777]><CT>" killed "w';
    const out = replay([
      connect('Killer', 4, 44),
      connect(bait, 6, 66),
      ROUND,
      `"Killer<4><[U:1:44]><CT>" [0 0 0] killed "${bait}<6><[U:1:66]><TERRORIST>" [0 0 0] with "ak47"`,
      ROUND,
    ]);
    assert.deepEqual(
      out.kills.map((k) => [k.killer.steamId, k.victim.steamId, k.victim.name]),
      [[steam(44), steam(66), bait]],
    );
  });

  it('does not read a kill out of lines it does not use (purchases, damage, triggers, plugins)', () => {
    const out = replay([
      connect('Buyer', 4, 44),
      ROUND,
      `"Buyer<4><[U:1:44]><CT>" purchased "${FORGED}"`,
      `"Buyer<4><[U:1:44]><CT>" triggered "${FORGED}"`,
      `Buyer have killed Victim from a distance of 36 meters`,
      `"Buyer<4><[U:1:44]><CT>" [0 0 0] attacked "y<3><[U:1:8888]><TERRORIST>" [0 0 0] with "awp" (damage "27") (damage_armor "0") (health "73") (armor "0") (hitgroup "chest")`,
      `"Buyer<4><[U:1:44]><CT>" [0 0 0] killed other "chicken<145>" [1 1 1] with "knife"`,
      `"Buyer<4><[U:1:44]><CT>" assisted killing "y<3><[U:1:8888]><TERRORIST>"`,
      ROUND,
    ]);
    assert.deepEqual(out.kills, []);
  });

  it('treats a SteamID that two connected players hold under different names as shared, and stops counting its kills', () => {
    // The UDP property's seed 394895091: an authentic line put the killer's id on a second
    // connection (uid 1726801127, another name) while the first was still connected. A real
    // account cannot be connected twice; bot mods give many bots one id. The same id under the
    // same name is a reconnect whose disconnect was missed, and keeps counting.
    const kill = `"Old<2><[U:1:11]><CT>" [0 0 0] killed "V<3><[U:1:66]><TERRORIST>" [0 0 0] with "ak47"`;
    const counted = (between: string) =>
      replay([side('Old', 2, 11, 'CT'), side('V', 3, 66, 'TERRORIST'), between, ROUND, kill, ROUND]).kills
        .length;
    assert.equal(counted(`"Other<1726801127><[U:1:11]><CT>" say "hi"`), 0);
    assert.equal(counted(`"Old<1726801127><[U:1:11]><CT>" say "hi"`), 1);
    assert.equal(counted(`"Other<1726801127><[U:1:12]><CT>" say "hi"`), 1);
  });

  it('keeps lines with many token-like fragments bounded (not read, no quadratic work)', () => {
    const spam = '<1><[U:1:1]><CT>"'.repeat(2000);
    const started = performance.now();
    const r = parseLogLine(`${L}"Spam<5><[U:1:1]><CT>" say "${spam}"`);
    assert.ok(performance.now() - started < 200);
    assert.ok(!r.ok || r.event.kind === 'other');
  });
});

/** Fragments a player can put in a name or a chat line (names are short; chat a little longer). */
const FRAGMENTS = [
  'a',
  'Z',
  ' ',
  '☃',
  '日本',
  '"',
  '<',
  '>',
  '<1>',
  '<CT>',
  '<TERRORIST>',
  '[U:1:7777]',
  '<[U:1:7777]>',
  'STEAM_0:1:5',
  '<STEAM_0:1:5>',
  '<2><[U:1:7777]><CT>"',
  '<3><[U:1:8888]><TERRORIST>"',
  ' killed "',
  ' [0 0 0]',
  ' with "awp"',
  ' (headshot)',
  ' say "',
  ' changed name to "',
  ' switched from team <CT> to <TERRORIST>',
  ' disconnected',
  'killed',
  '[CLAN] ',
];
const text = (max: number) =>
  fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: max }).map((parts) => parts.join(''));

describe('property: player text never becomes another event', () => {
  it('a genuine kill line always has its true reading among the readings', () => {
    fc.assert(
      fc.property(text(6), text(6), (killer, victim) => {
        const r = parseLogLine(
          `${L}"${killer}<4><[U:1:44]><CT>" [0 0 0] killed "${victim}<6><[U:1:66]><TERRORIST>" [0 0 0] with "ak47"`,
        );
        assert.ok(r.ok);
        const readings = r.event.kind === 'ambiguous' ? r.event.options : [r.event];
        assert.ok(
          readings.some(
            (e) =>
              e.kind === 'kill' &&
              e.killer.name === killer &&
              e.killer.steamId === steam(44) &&
              e.victim.name === victim &&
              e.victim.steamId === steam(66),
          ),
        );
      }),
      { numRuns: 400 },
    );
  });

  it('chat never adds a kill or loses one, and names never credit a kill to anyone else', () => {
    fc.assert(
      fc.property(text(6), text(6), text(12), fc.boolean(), (killer, victim, chat, team) => {
        const stream = (k: string, v: string) => [
          connect(k, 4, 44),
          connect(v, 6, 66),
          connect('Chatter', 5, 1),
          ROUND,
          `"Chatter<5><[U:1:1]><CT>" ${team ? 'say_team' : 'say'} "${chat}"`,
          `"${k}<4><[U:1:44]><CT>" [0 0 0] killed "${v}<6><[U:1:66]><TERRORIST>" [0 0 0] with "ak47"`,
          `"Chatter<5><[U:1:1]><CT>" say "${chat}" (dead)`,
          ROUND,
        ];
        const out = replay(stream(killer, victim));
        assert.ok(out.kills.length <= 1);
        for (const k of out.kills) {
          assert.deepEqual([k.killer.steamId, k.victim.steamId], [steam(44), steam(66)]);
        }
        const plain = replay(stream('Killer', 'Victim'));
        assert.deepEqual(
          plain.kills.map((k) => [k.killer.steamId, k.victim.steamId]),
          [[steam(44), steam(66)]],
        );
      }),
      { numRuns: 400 },
    );
  });
});
