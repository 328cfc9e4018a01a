import { toSteamId64 } from './steam-ids.js';

/**
 * The HL log standard shared by GoldSrc (CS 1.6) and Source/Source 2 (CS2): one event per line,
 *   `L MM/DD/YYYY - HH:MM:SS: <event>`
 * CS2's HTTP log stream writes `MM/DD/YYYY - HH:MM:SS.mmm - <event>` (no `L `, milliseconds, ` - `),
 * so the prefix, the milliseconds and the separator are all optional here. Server clocks carry no
 * zone in the line; timestamps are read as UTC (run game servers with TZ=UTC, see the README).
 *
 * Players are written `"Name<userid><steamid><team>"`; names may hold quotes, `<`, `>` and any
 * unicode, so every pattern anchors on the trailing `<digits><id><team>"` and lets the name match
 * lazily up to it. Regexes are compiled once: this is the hot path of ingest.
 */
export interface LogPlayer {
  name: string;
  /** SteamID64, or null for bots, LAN and pending ids */
  steamId: string | null;
  team: string;
}

export interface Vec3 {
  x: number;
  y: number;
  z: number;
}

export type LogEvent =
  | {
      kind: 'kill';
      at: number;
      killer: LogPlayer;
      victim: LogPlayer;
      killerPos: Vec3 | null;
      victimPos: Vec3 | null;
      weapon: string;
      flags: string[];
    }
  | { kind: 'round_start'; at: number }
  | { kind: 'round_end'; at: number }
  | { kind: 'score'; at: number; ct: number; t: number }
  | { kind: 'team'; at: number; player: LogPlayer; team: string }
  | { kind: 'match_start'; at: number; map: string | null }
  | { kind: 'map'; at: number; map: string }
  | { kind: 'game_over'; at: number; map: string; ct: number; t: number }
  | { kind: 'connect'; at: number; player: LogPlayer }
  | { kind: 'disconnect'; at: number; player: LogPlayer }
  | { kind: 'log_closed'; at: number }
  | { kind: 'other'; at: number };

export type ParseResult = { ok: true; event: LogEvent } | { ok: false; reason: string };

const STAMP = /^(?:L )?(\d\d)\/(\d\d)\/(\d{4}) - (\d\d):(\d\d):(\d\d)(?:\.(\d{1,3}))?(?::| -) (.*)$/s;
const P = String.raw`"(.*?)<(-?\d+)><([^<>"]*)><([^<>"]*)>"`;
const P3 = String.raw`"(.*?)<(-?\d+)><([^<>"]*)>(?:<([^<>"]*)>)?"`;
const POS = String.raw`(?: \[(-?\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?)\])?`;
const KILL = new RegExp(String.raw`^${P}${POS} killed ${P}${POS} with "([^"]*)"(?: \(([^)]*)\))?\s*$`, 's');
const SWITCHED = new RegExp(String.raw`^${P3} switched from team <([^<>]*)> to <([^<>]*)>\s*$`, 's');
const JOINED = new RegExp(String.raw`^${P3} joined team "([^"]*)"\s*$`, 's');
const CONNECTED = new RegExp(String.raw`^${P3} connected, address "[^"]*"\s*$`, 's');
const DISCONNECTED = new RegExp(String.raw`^${P3} disconnected(?: \(reason "[^"]*"\))?\s*$`, 's');
const WORLD = /^World triggered "([^"]+)"(?: on "([^"]*)")?/;
const TEAM_TRIGGER = /^Team "[^"]*" triggered "[^"]*" \(CT "(\d+)"\) \(T "(\d+)"\)/;
const GAME_OVER = /^Game Over: \S+ (?:\S+ )?(\S+) score (\d+):(\d+)/;
const MAP = /^(?:Loading|Started) map "([^"]+)"/;

// Servers write many lines per second; the last second's value is reused.
let lastSecond = '';
let lastSecondMs = Number.NaN;

/** Epoch ms of the line's timestamp (UTC), or NaN when the date is impossible. */
function stamp(m: RegExpExecArray): number {
  const [, mo, d, y, h, mi, s, ms] = m;
  const key = `${mo}${d}${y}${h}${mi}${s}`;
  if (key !== lastSecond) {
    lastSecond = key;
    lastSecondMs = second(Number(mo), Number(d), Number(y), Number(h), Number(mi), Number(s));
  }
  return lastSecondMs + Number(ms ?? 0);
}

function second(mo: number, d: number, y: number, h: number, mi: number, s: number): number {
  const at = Date.UTC(y, mo - 1, d, h, mi, s);
  const date = new Date(at);
  return date.getUTCDate() === d && date.getUTCMonth() === mo - 1 && h < 24 && mi < 60 && s < 60
    ? at
    : Number.NaN;
}

// A server has a few dozen players; their ids are converted once.
const steamIds = new Map<string, string | null>();
function steamId(raw: string): string | null {
  let id = steamIds.get(raw);
  if (id === undefined) {
    id = toSteamId64(raw);
    if (steamIds.size > 50_000) steamIds.clear();
    steamIds.set(raw, id);
  }
  return id;
}

function player(m: RegExpExecArray, i: number): LogPlayer {
  return { name: m[i] ?? '', steamId: steamId(m[i + 2] ?? ''), team: m[i + 3] ?? '' };
}

const vec = (m: RegExpExecArray, i: number): Vec3 | null =>
  m[i] === undefined ? null : { x: Number(m[i]), y: Number(m[i + 1]), z: Number(m[i + 2]) };

/** Parses one line; `ok: false` only for lines that are not log lines at all (or impossible dates). */
export function parseLogLine(line: string): ParseResult {
  const m = STAMP.exec(line.endsWith('\n') || line.endsWith('\r') ? line.trimEnd() : line);
  if (!m) return { ok: false, reason: 'not a log line (expected "L MM/DD/YYYY - HH:MM:SS: …")' };
  const at = stamp(m);
  if (Number.isNaN(at)) return { ok: false, reason: 'invalid timestamp' };
  const body = m[8] ?? '';
  const c = body.charCodeAt(0);
  if (c === 34 /* " */) {
    if (body.includes(' killed ')) {
      const k = KILL.exec(body);
      if (k && !body.includes(' killed other ')) {
        return {
          ok: true,
          event: {
            kind: 'kill',
            at,
            killer: player(k, 1),
            killerPos: vec(k, 5),
            victim: player(k, 8),
            victimPos: vec(k, 12),
            weapon: k[15] ?? '',
            flags: k[16] ? k[16].split(' ').filter(Boolean) : [],
          },
        };
      }
    }
    const sw = SWITCHED.exec(body) ?? JOINED.exec(body);
    if (sw) {
      const team = sw[sw.length - 1] ?? '';
      return { ok: true, event: { kind: 'team', at, player: player(sw, 1), team } };
    }
    const con = CONNECTED.exec(body);
    if (con) return { ok: true, event: { kind: 'connect', at, player: player(con, 1) } };
    const dis = DISCONNECTED.exec(body);
    if (dis) return { ok: true, event: { kind: 'disconnect', at, player: player(dis, 1) } };
    return { ok: true, event: { kind: 'other', at } };
  }
  const w = WORLD.exec(body);
  if (w) {
    switch (w[1] ?? '') {
      case 'Round_Start':
        return { ok: true, event: { kind: 'round_start', at } };
      case 'Round_End':
        return { ok: true, event: { kind: 'round_end', at } };
      case 'Match_Start':
      case 'Game_Commencing':
        return { ok: true, event: { kind: 'match_start', at, map: w[2] ?? null } };
      default:
        return { ok: true, event: { kind: 'other', at } };
    }
  }
  const tt = TEAM_TRIGGER.exec(body);
  if (tt) return { ok: true, event: { kind: 'score', at, ct: Number(tt[1]), t: Number(tt[2]) } };
  const go = GAME_OVER.exec(body);
  if (go) {
    return {
      ok: true,
      event: { kind: 'game_over', at, map: go[1] ?? '', ct: Number(go[2]), t: Number(go[3]) },
    };
  }
  const map = MAP.exec(body);
  if (map) return { ok: true, event: { kind: 'map', at, map: map[1] ?? '' } };
  if (body.startsWith('Log file closed')) return { ok: true, event: { kind: 'log_closed', at } };
  return { ok: true, event: { kind: 'other', at } };
}

/** Source engine units are inches: 1 unit = 0.0254 m. Distance is rounded to centimetres. */
export const METRES_PER_UNIT = 0.0254;

export function distanceMetres(a: Vec3 | null, b: Vec3 | null): number {
  if (!a || !b) return 0;
  const d = Math.hypot(a.x - b.x, a.y - b.y, a.z - b.z) * METRES_PER_UNIT;
  return Math.round(d * 100) / 100;
}
