import fc from 'fast-check';
import { stamp } from './ingest.js';

/**
 * Arbitraries of hostile ingest input (fast-check): log lines built from real line shapes whose
 * every slot may hold a number of hundreds of digits, a JavaScript property name, quotes, `<`, `>`,
 * Steam-id look-alikes or any unicode, stamped with any date. Shared by the HTTP and UDP properties.
 */
export const PROPERTY_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'prototype',
  'valueOf',
];

export const hugeNumber = fc.integer({ min: 1, max: 600 }).map((n) => `${n % 2 ? '-' : ''}${'9'.repeat(n)}`);
export const token = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    ...PROPERTY_NAMES,
    '"',
    '<',
    '>',
    '><',
    '"x<1><[U:1:7]><CT>"',
    ' killed ',
    'STEAM_0:1:5',
    'BOT',
    '',
  ),
  hugeNumber,
  fc.integer().map(String),
  fc.double().map(String),
);
/** An instant near `now` (inside or just outside the ingest window), or any date at all. */
export const when = (now: number) =>
  fc.oneof(
    fc.integer({ min: now - 10 * 86_400_000, max: now + 3_600_000 }),
    fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(9999, 11, 31) }),
  );
const player = fc
  .tuple(
    token,
    token,
    fc.constantFrom('[U:1:12]', 'STEAM_0:0:7', 'BOT', '[U:1:99999999999999]'),
    token,
    token,
  )
  .map(([name, uid, id, alt, team]) => `"${name}<${uid}><${id === 'BOT' ? alt : id}><${team}>"`);
const body = fc.oneof(
  fc
    .tuple(player, token, token, token, player, token, token)
    .map(([a, x, y, z, b, w, f]) => `${a} [${x} ${y} ${z}] killed ${b} [0 0 0] with "${w}" (${f})`),
  fc.tuple(player, token).map(([a, t]) => `${a} say "${t}"`),
  fc.tuple(player, token).map(([a, t]) => `${a} changed name to "${t}"`),
  fc.tuple(player, token).map(([a, t]) => `${a} switched from team <${t}> to <CT>`),
  fc.tuple(token, token).map(([ct, t]) => `Team "CT" triggered "CTs_Win" (CT "${ct}") (T "${t}")`),
  fc
    .tuple(token, token, token)
    .map(([m, ct, t]) => `Game Over: competitive ${m} de_x score ${ct}:${t} after 9 min`),
  fc
    .tuple(token, token, token)
    .map(([ct, t, n]) => `MatchStatus: Score: ${ct}:${t} on map "x" RoundsPlayed: ${n}`),
  fc.constantFrom(
    'World triggered "Round_Start"',
    'World triggered "Round_End"',
    'World triggered "Match_Start" on "de_dust2"',
  ),
  token.map((t) => `World triggered "${t}"`),
  fc.string({ unit: 'grapheme', maxLength: 80 }),
);
/** A log line of a real shape with hostile slots, a line with a hostile date, or any text. */
export const hostileLine = (now: number) =>
  fc.oneof(
    fc.tuple(when(now), body).map(([at, b]) => `${stamp(at)}${b}`),
    fc.tuple(hugeNumber, body).map(([y, b]) => `L 11/21/${y} - 19:00:00: ${b}`),
    fc.string({ unit: 'grapheme', maxLength: 120 }),
  );
