import type { LogEvent, ParseResult, Vec3 } from './log-events.js';
import { readPlayerLine } from './player-line.js';

export type { LogEvent, LogPlayer, ParseResult, Vec3 } from './log-events.js';

/**
 * The HL log standard shared by GoldSrc (CS 1.6) and Source/Source 2 (CS:GO, CS2): one event per line,
 *   `L MM/DD/YYYY - HH:MM:SS: <event>`
 * CS2's HTTP log stream writes `MM/DD/YYYY - HH:MM:SS.mmm - <event>` (no `L `, milliseconds, ` - `),
 * so the prefix, the milliseconds and the separator are all optional here. Server clocks carry no
 * zone in the line; timestamps are read as UTC (run game servers with TZ=UTC, see docs/game-servers.md).
 *
 * Lines that start with a participant are read by structure (player-line.ts); the others are
 * written by the server itself (`World triggered`, `Team … triggered`, `MatchStatus`, `Game Over`,
 * map and log lines). Regexes are compiled once: this is the hot path of ingest.
 */
const STAMP = /^(?:L )?(\d\d)\/(\d\d)\/(\d{4}) - (\d\d):(\d\d):(\d\d)(?:\.(\d{1,3}))?(?::| -) (.*)$/s;
const SCORE = String.raw`\(CT "(\d{1,6})"\) \(T "(\d{1,6})"\)`;
const WORLD = new RegExp(String.raw`^World triggered "([^"]+)"(?: on "([^"]*)")?(?: ${SCORE})?\s*$`);
const TEAM_TRIGGER = new RegExp(String.raw`^Team "[^"]*" triggered "[^"]*" ${SCORE}\s*$`);
const TEAM_SCORED = /^Team "(CT|TERRORIST)" scored "(\d{1,6})" with "\d{1,4}" players\s*$/;
const MATCH_STATUS = /^MatchStatus: Score: (\d{1,6}):(\d{1,6}) on map "[^"]*" RoundsPlayed: (-?\d{1,6})\s*$/;
/**
 * `Game Over: <mode> <map group> <map> score <ct>:<t> after <n> min`. The map group may be empty
 * (CS2 writes two spaces: `competitive  de_inferno`), a name (`mg_de_cache`), or `<allmaps>`.
 */
const GAME_OVER = /^Game Over: \S+ (?:\S* )?(\S+) score (\d{1,6}):(\d{1,6})(?: after \d{1,6} min)?\s*$/;
const MAP = /^(?:Loading|Started) map "([^"]+)"/;
/** Longer than any line a game server writes (GoldSrc caps lines near 1 KB). */
export const MAX_LINE_LENGTH = 4096;
const RESTARTS = /^(?:Game_Commencing|Restart_Round_\(\d{1,6}_seconds?\))$/;

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

/** A line written by the server itself (no participant first). */
function worldEvent(at: number, body: string): LogEvent {
  const w = WORLD.exec(body);
  if (w) {
    const name = w[1] ?? '';
    switch (name) {
      case 'Round_Start':
        return { kind: 'round_start', at };
      case 'Round_End':
        return { kind: 'round_end', at };
      case 'Match_Start':
        return { kind: 'match_start', at, map: w[2] ?? null };
      case 'Match_Reloaded':
        return { kind: 'match_reloaded', at };
      case 'Warmup_Start':
        return { kind: 'warmup_start', at };
      case 'Warmup_End':
        return { kind: 'warmup_end', at };
      default:
        if (RESTARTS.test(name)) return { kind: 'restart', at };
        if (w[3] !== undefined) return { kind: 'score', at, ct: Number(w[3]), t: Number(w[4]) };
        return { kind: 'other', at };
    }
  }
  let m = TEAM_TRIGGER.exec(body);
  if (m) return { kind: 'score', at, ct: Number(m[1]), t: Number(m[2]) };
  if ((m = MATCH_STATUS.exec(body))) {
    return { kind: 'match_status', at, ct: Number(m[1]), t: Number(m[2]), roundsPlayed: Number(m[3]) };
  }
  if ((m = TEAM_SCORED.exec(body))) return { kind: 'team_scored', at, team: m[1] ?? '', score: Number(m[2]) };
  if ((m = GAME_OVER.exec(body))) {
    return { kind: 'game_over', at, map: m[1] ?? '', ct: Number(m[2]), t: Number(m[3]) };
  }
  if ((m = MAP.exec(body))) return { kind: 'map', at, map: m[1] ?? '' };
  if (body.startsWith('Log file closed')) return { kind: 'log_closed', at };
  return { kind: 'other', at };
}

/** Parses one line; `ok: false` only for lines that are not log lines at all (or impossible dates). */
export function parseLogLine(line: string): ParseResult {
  if (line.length > MAX_LINE_LENGTH)
    return { ok: false, reason: `line longer than ${MAX_LINE_LENGTH} characters` };
  const m = STAMP.exec(line.endsWith('\n') || line.endsWith('\r') ? line.trimEnd() : line);
  if (!m) return { ok: false, reason: 'not a log line (expected "L MM/DD/YYYY - HH:MM:SS: …")' };
  const at = stamp(m);
  if (Number.isNaN(at)) return { ok: false, reason: 'invalid timestamp' };
  const body = m[8] ?? '';
  if (body.charCodeAt(0) !== 34 /* " */) return { ok: true, event: worldEvent(at, body) };
  const readings = readPlayerLine(at, body);
  if (readings.every((r) => r.kind === 'action')) return { ok: true, event: { kind: 'other', at } };
  const [only] = readings;
  if (readings.length === 1 && only) return { ok: true, event: only };
  return { ok: true, event: { kind: 'ambiguous', at, options: readings } };
}

/** Source engine units are inches: 1 unit = 0.0254 m. Distance is rounded to centimetres. */
export const METRES_PER_UNIT = 0.0254;

export function distanceMetres(a: Vec3 | null, b: Vec3 | null): number {
  if (!a || !b) return 0;
  const d = Math.hypot(a.x - b.x, a.y - b.y, a.z - b.z) * METRES_PER_UNIT;
  return Math.round(d * 100) / 100;
}
