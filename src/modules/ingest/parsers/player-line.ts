import { accountOf } from '../../../engines/counting.js';
import type { LogPlayer, PlayerEvent, Vec3 } from './log-events.js';

/**
 * Lines that start with a participant, read by structure: `"Name<uid><id><team>"` then a verb.
 *
 * Game logs do not escape what players type: a name or a chat line may hold quotes, `<`, `>`,
 * `killed`, `[U:1:…]` or a whole forged participant token. So the parser never searches the line
 * for a verb. It tries every place where a participant token can close (`<digits><id>[<team>]"`)
 * as the end of the subject, and keeps the split only when the WHOLE rest of the line is exactly
 * one verb's grammar (kill, suicide, chat, name change, team, connect, entered, disconnect). The
 * object of a kill ends at the last token close before the fixed `with "weapon"` tail.
 * One reading: that event. Several (the line holds a forged token): an `ambiguous` event whose
 * options the stream's roster of connected players settles, or drops (match-state.ts). No reading:
 * a line we do not use (`triggered`, `purchased`, `attacked`, …).
 */
/** A token's end with and without its team (CS2 omits it on team switches), tried at every `<`. */
const CLOSE_3 = /<(-?\d{1,10})><([^<>"]*)><([^<>"]*)>"/y;
const CLOSE_2 = /<(-?\d{1,10})><([^<>"]*)>"/y;
const NUM = String.raw`-?\d{1,7}(?:\.\d{1,6})?`;
const POS = String.raw`\[(${NUM}) (${NUM}) (${NUM})\]`;
const OBJECT = String.raw`"(.*)<(-?\d{1,10})><([^<>"]*)><([^<>"]*)>"`;
const KILL = new RegExp(
  String.raw`^(?: ${POS})? killed ${OBJECT}(?: ${POS})? with "([^"]*)"(?: \(([^()"]*)\))?$`,
  's',
);
const SUICIDE = new RegExp(String.raw`^(?: ${POS})? committed suicide with "([^"]*)"(?: \(world\))?$`);
const CHAT = /^ say(_team)? "(.*)"(?: \(dead\))?$/s;
const RENAME = /^ changed name to "(.*)"$/s;
const JOINED = /^ joined team "([^"]*)"(?: \(auto\))?$/;
const SWITCHED = /^ switched from team <([^<>"]*)> to <([^<>"]*)>$/;
const CONNECTED = /^ connected, address "([^"]*)"$/;
const ENTERED = /^ (?:entered the game|STEAM USERID validated)$/;
const DISCONNECTED = /^ disconnected(?: \(reason ".*"\))?$/s;
/**
 * Any other verb (`purchased`, `triggered`, `[x y z] attacked`, a plugin's), whose text may be a
 * player's. Not our verbs with a broken tail (no reading at all), nor `with "…"`, which follows
 * the object of a kill or an attack, not a subject.
 */
const ACTION =
  /^ (?:\[[-\d. ]{5,40}\] )?(?!with "|killed "|say "|say_team "|changed name |connected, |joined team |switched from |committed suicide |disconnected|entered the game)[a-z]/;
/** First letters of the verbs above (`[` starts a position); other verbs are not tried at all. */
const VERB_START = new Set(Array.from('k[csjed', (c) => c.charCodeAt(0)));
/** More candidate token ends than any honest line has: the line is not read (no quadratic work). */
const MAX_CLOSES = 16;

// A server has a few dozen players; their ids are classified once.
const accounts = new Map<string, string | null>();
function account(raw: string): string | null {
  let id = accounts.get(raw);
  if (id === undefined) {
    id = accountOf(raw);
    if (accounts.size > 50_000) accounts.clear();
    accounts.set(raw, id);
  }
  return id;
}

const makePlayer = (name: string, uid: string, id: string, team: string): LogPlayer => ({
  name,
  uid,
  id,
  steamId: account(id),
  team,
});

const vec = (m: RegExpExecArray, i: number): Vec3 | null =>
  m[i] === undefined ? null : { x: Number(m[i]), y: Number(m[i + 1]), z: Number(m[i + 2]) };

/** The one event `rest` spells for `subject`, or null when it is none of the verbs we read. */
function readVerb(at: number, subject: LogPlayer, rest: string): PlayerEvent | null {
  if (!VERB_START.has(rest.charCodeAt(1)))
    return ACTION.test(rest) ? { kind: 'action', at, player: subject } : null;
  let m = KILL.exec(rest);
  if (m) {
    return {
      kind: 'kill',
      at,
      killer: subject,
      killerPos: vec(m, 1),
      victim: makePlayer(m[4] ?? '', m[5] ?? '', m[6] ?? '', m[7] ?? ''),
      victimPos: vec(m, 8),
      weapon: m[11] ?? '',
      flags: m[12] ? m[12].split(' ').filter(Boolean) : [],
    };
  }
  if ((m = SUICIDE.exec(rest))) return { kind: 'suicide', at, player: subject, weapon: m[4] ?? '' };
  if ((m = CHAT.exec(rest)))
    return { kind: 'chat', at, player: subject, channel: m[1] ? 'team' : 'all', text: m[2] ?? '' };
  if ((m = RENAME.exec(rest))) return { kind: 'rename', at, player: subject, newName: m[1] ?? '' };
  if ((m = JOINED.exec(rest))) return { kind: 'team', at, player: subject, team: m[1] ?? '' };
  if ((m = SWITCHED.exec(rest))) return { kind: 'team', at, player: subject, team: m[2] ?? '' };
  if (CONNECTED.test(rest)) return { kind: 'connect', at, player: subject };
  if (ENTERED.test(rest)) return { kind: 'entered', at, player: subject };
  if (DISCONNECTED.test(rest)) return { kind: 'disconnect', at, player: subject };
  return ACTION.test(rest) ? { kind: 'action', at, player: subject } : null;
}

/**
 * Every reading of a line that starts with `"`, including `action` readings (verbs we do not use),
 * which count so that text inside such a line cannot be the only reading.
 */
export function readPlayerLine(at: number, body: string): PlayerEvent[] {
  const readings: PlayerEvent[] = [];
  let closes = 0;
  for (let i = body.indexOf('<'); i !== -1; i = body.indexOf('<', i + 1)) {
    for (const close of [CLOSE_3, CLOSE_2]) {
      close.lastIndex = i;
      const m = close.exec(body);
      if (!m) continue;
      if (++closes > MAX_CLOSES) return [];
      const subject = makePlayer(body.slice(1, i), m[1] ?? '', m[2] ?? '', m[3] ?? '');
      const event = readVerb(at, subject, body.slice(close.lastIndex));
      if (event) readings.push(event);
    }
  }
  return readings;
}
