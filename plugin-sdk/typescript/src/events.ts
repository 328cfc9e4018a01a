/**
 * What a plugin reports, validated and encoded exactly as the hub reads it
 * (plugin-sdk/vectors/events.json). An invalid event is refused when it is queued, so it can never
 * sit in the spool and be refused by the hub again at every resend.
 */

/** A player: a name and exactly one platform id. */
export interface Player {
  name: string;
  /** SteamID64 (17 digits), `STEAM_X:Y:Z` or `[U:1:N]` */
  steam_id?: string;
  /** a Minecraft UUID, with or without dashes */
  minecraft_uuid?: string;
  /** an Epic Online Services product user id (32 hex digits) */
  eos_id?: string;
}
/** A match participant: a player and the share of the match they played (default 1). */
export interface Participant extends Player {
  participation?: number;
}
/** An ISO 8601 string with a zone, epoch milliseconds, or a Date. Absent: now. */
export type Time = string | number | Date;

interface Base {
  /** unique per server; absent: the SDK assigns one (instance-seq) */
  client_id?: string;
}
export interface PlayerSessionEvent extends Base {
  type: 'player_session';
  occurred_at?: Time;
  action: 'connect' | 'disconnect';
  player: Player;
}
export interface ChatEvent extends Base {
  type: 'chat';
  occurred_at?: Time;
  player: Player;
  message: string;
  team_only?: boolean;
}
export interface KillEvent extends Base {
  type: 'kill';
  occurred_at?: Time;
  killer: Player;
  victim: Player;
  weapon: string;
  headshot?: boolean;
  /** metres */
  distance?: number;
  round_number?: number;
}
export interface RoundEvent extends Base {
  type: 'round';
  occurred_at?: Time;
  action: 'start' | 'end';
  round_number: number;
  team1_score?: number;
  team2_score?: number;
  winner?: 'team1' | 'team2' | 'draw';
}
export interface MatchResultEvent extends Base {
  type: 'match_result';
  ended_at?: Time;
  map: string;
  team1: Participant[];
  team2: Participant[];
  team1_score: number;
  team2_score: number;
  tournament_id?: number;
}
export interface MapChangeEvent extends Base {
  type: 'map_change';
  occurred_at?: Time;
  map: string;
}
export type GameEvent =
  PlayerSessionEvent | ChatEvent | KillEvent | RoundEvent | MatchResultEvent | MapChangeEvent;

/** An event as it travels (and as the spool keeps it): plain JSON with its client id. */
export interface WireEvent {
  type: GameEvent['type'];
  client_id: string;
  [field: string]: unknown;
}

/** The event cannot be sent as it is; `field` is the dotted path of what is wrong. */
export class InvalidEventError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'InvalidEventError';
  }
}

type Check = (value: unknown, path: string) => unknown;
const fail = (path: string, message: string): never => {
  throw new InvalidEventError(path, message);
};
// code points, as JSON Schema's maxLength counts them (the hub validates with it)
// eslint-disable-next-line @typescript-eslint/no-misused-spread -- code points are what is meant
const chars = (s: string) => [...s].length;

// UTF-16 length >= code points, so only a string longer than max in UTF-16 units needs counting
const text =
  (min: number, max: number): Check =>
  (v, path) =>
    typeof v === 'string' &&
    v.length >= min &&
    (v.length <= max || chars(v) <= max) &&
    (min <= 1 || chars(v) >= min)
      ? v
      : fail(path, `must be a string of ${min} to ${max} characters`);
const oneOf =
  (values: readonly string[]): Check =>
  (v, path) =>
    typeof v === 'string' && values.includes(v) ? v : fail(path, `must be one of ${values.join(', ')}`);
const int =
  (min: number, max: number): Check =>
  (v, path) =>
    Number.isInteger(v) && (v as number) >= min && (v as number) <= max
      ? v
      : fail(path, `must be an integer from ${min} to ${max}`);
const num =
  (min: number, max: number): Check =>
  (v, path) =>
    typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max
      ? v
      : fail(path, `must be a number from ${min} to ${max}`);
const bool: Check = (v, path) => (typeof v === 'boolean' ? v : fail(path, 'must be true or false'));

const STEAM = [/^\d{17}$/, /^STEAM_[0-5]:[01]:\d{1,10}$/, /^\[U:1:\d{1,10}\]$/];
const UUID = /^(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
const EOS = /^[0-9a-f]{32}$/i;
const IDS = {
  steam_id: (v: string, path: string) =>
    STEAM.some((p) => p.test(v)) ? v : fail(path, 'must be a SteamID64, STEAM_X:Y:Z or [U:1:N]'),
  minecraft_uuid: (v: string, path: string) => {
    if (!UUID.test(v)) return fail(path, 'must be a UUID (32 hex digits, dashes optional)');
    const hex = v.replace(/-/g, '').toLowerCase();
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  },
  eos_id: (v: string, path: string) =>
    EOS.test(v) ? v.toLowerCase() : fail(path, 'must be an EOS product user id (32 hex digits)'),
};
type IdKind = keyof typeof IDS;
const ID_KINDS = Object.keys(IDS) as IdKind[];

const object = (v: unknown, path: string): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : fail(path, 'must be an object');

function player(extra: Record<string, Check> = {}): Check {
  const known = new Set(['name', ...ID_KINDS, ...Object.keys(extra)]);
  const extras = Object.entries(extra);
  return (v, path) => {
    const p = object(v, path);
    for (const key in p) if (!known.has(key)) fail(`${path}.${key}`, 'is not a field of a player');
    const ids = ID_KINDS.filter((k) => p[k] !== undefined);
    if (ids.length !== 1) fail(path, 'must have exactly one of steam_id, minecraft_uuid, eos_id');
    const kind = ids[0] as IdKind;
    const raw = p[kind];
    const out: Record<string, unknown> = { name: text(1, 64)(p.name, `${path}.name`) };
    out[kind] = IDS[kind](
      typeof raw === 'string' ? raw : fail(`${path}.${kind}`, 'must be a string'),
      `${path}.${kind}`,
    );
    for (const [key, check] of extras) if (p[key] !== undefined) out[key] = check(p[key], `${path}.${key}`);
    return out;
  };
}
const participant = player({ participation: num(0, 1) });
const team: Check = (v, path) => {
  if (!Array.isArray(v) || v.length < 1 || v.length > 64) return fail(path, 'must list 1 to 64 players');
  return v.map((p, i) => participant(p, `${path}.${i}`));
};

interface Kind {
  time: 'occurred_at' | 'ended_at';
  required: Record<string, Check>;
  optional?: Record<string, Check>;
  /** a rule across fields */
  also?: (wire: Record<string, unknown>) => void;
}
const identity = (p: unknown) => {
  const r = p as Record<string, string>;
  const kind = ID_KINDS.find((k) => r[k] !== undefined) ?? 'steam_id';
  return `${kind}:${r[kind] ?? ''}`;
};
const KINDS: Record<GameEvent['type'], Kind> = {
  player_session: {
    time: 'occurred_at',
    required: { action: oneOf(['connect', 'disconnect']), player: player() },
  },
  chat: {
    time: 'occurred_at',
    required: { player: player(), message: text(1, 512) },
    optional: { team_only: bool },
  },
  kill: {
    time: 'occurred_at',
    required: { killer: player(), victim: player(), weapon: text(1, 32) },
    optional: { headshot: bool, distance: num(0, 100_000), round_number: int(0, 10_000) },
    also: (w) => {
      if (identity(w.killer) === identity(w.victim)) fail('victim', 'is the killer (not a frag)');
    },
  },
  round: {
    time: 'occurred_at',
    required: { action: oneOf(['start', 'end']), round_number: int(0, 10_000) },
    optional: {
      team1_score: int(0, 1000),
      team2_score: int(0, 1000),
      winner: oneOf(['team1', 'team2', 'draw']),
    },
  },
  match_result: {
    time: 'ended_at',
    required: {
      map: text(1, 64),
      team1: team,
      team2: team,
      team1_score: int(0, 1000),
      team2_score: int(0, 1000),
    },
    optional: { tournament_id: int(1, 2_147_483_647) },
  },
  map_change: { time: 'occurred_at', required: { map: text(1, 64) } },
};
const KIND_NAMES = Object.keys(KINDS);
/** each kind's fields, listed once: encodeEvent runs for every event a busy server reports */
const COMPILED = new Map(
  Object.entries(KINDS).map(([type, kind]) => [
    type,
    {
      kind,
      allowed: new Set([
        'type',
        'client_id',
        kind.time,
        ...Object.keys(kind.required),
        ...Object.keys(kind.optional ?? {}),
      ]),
      required: Object.entries(kind.required),
      optional: Object.entries(kind.optional ?? {}),
    },
  ]),
);

const ZONED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/i;
function time(v: unknown, path: string): string {
  let ms = Number.NaN;
  if (v instanceof Date) ms = v.getTime();
  else if (typeof v === 'number') ms = Number.isSafeInteger(v) ? v : Number.NaN;
  else if (typeof v === 'string' && ZONED.test(v)) ms = Date.parse(v);
  if (!Number.isFinite(ms))
    return fail(path, 'must be an ISO 8601 time with a zone, epoch milliseconds or a Date');
  return new Date(ms).toISOString();
}

/**
 * Validates one event and returns its wire form. `nextClientId` is called only for a valid event
 * without its own client id; `now` is the SDK clock (epoch ms) for an event without a time.
 */
export function encodeEvent(input: unknown, nextClientId: () => string, now: () => number): WireEvent {
  const event = object(input, 'event');
  const type = event.type;
  const compiled = typeof type === 'string' ? COMPILED.get(type) : undefined;
  if (!compiled) return fail('type', `must be one of ${KIND_NAMES.join(', ')}`);
  const { kind, allowed } = compiled;
  for (const key in event) if (!allowed.has(key)) fail(key, `is not a field of a ${String(type)} event`);
  const wire: Record<string, unknown> = { type };
  if (event.client_id !== undefined) text(1, 128)(event.client_id, 'client_id');
  const at = event[kind.time];
  wire[kind.time] = at === undefined ? new Date(now()).toISOString() : time(at, kind.time);
  for (const [key, check] of compiled.required) {
    if (event[key] === undefined) fail(key, 'is required');
    wire[key] = check(event[key], key);
  }
  for (const [key, check] of compiled.optional)
    if (event[key] !== undefined) wire[key] = check(event[key], key);
  kind.also?.(wire);
  wire.client_id = event.client_id ?? nextClientId();
  return wire as WireEvent;
}
