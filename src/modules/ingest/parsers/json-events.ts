import { Type, type Static, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { BatchItems, Rejection } from '../pipeline.js';
import { accountOf } from '../../../engines/counting.js';

/**
 * Typed JSON events for games with a plugin (Rust via Oxide/uMod, or any game server that can POST
 * JSON). Each event carries a `client_id` unique per server: a resent batch is counted once.
 * Every event is validated on its own; a bad one is rejected with a reason, the rest go through.
 */
const SteamId = Type.String({
  minLength: 1,
  maxLength: 32,
  description: 'SteamID64 (17 digits), STEAM_X:Y:Z or [U:1:N]; stored as SteamID64',
  examples: ['76561198000000001'],
});
const Name = Type.String({ minLength: 1, maxLength: 64 });
const ClientId = Type.String({
  minLength: 1,
  maxLength: 128,
  description: 'unique per server; an event whose client_id was already accepted is a duplicate',
});
const When = Type.String({ format: 'date-time', description: 'ISO 8601 time of the event' });
const Participant = Type.Object(
  {
    steam_id: SteamId,
    name: Name,
    participation: Type.Optional(
      Type.Number({ minimum: 0, maximum: 1, description: 'share of the match played, default 1' }),
    ),
  },
  { additionalProperties: false },
);

export const KillEventSchema = Type.Object(
  {
    type: Type.Literal('kill'),
    client_id: ClientId,
    occurred_at: When,
    killer: Type.Object({ steam_id: SteamId, name: Name }, { additionalProperties: false }),
    victim: Type.Object({ steam_id: SteamId, name: Name }, { additionalProperties: false }),
    weapon: Type.String({ minLength: 1, maxLength: 32, examples: ['rifle.ak'] }),
    headshot: Type.Optional(Type.Boolean()),
    distance: Type.Optional(Type.Number({ minimum: 0, maximum: 100000, description: 'metres' })),
    round_number: Type.Optional(Type.Integer({ minimum: 0, maximum: 10000 })),
  },
  { additionalProperties: false },
);

export const MatchResultEventSchema = Type.Object(
  {
    type: Type.Literal('match_result'),
    client_id: ClientId,
    ended_at: When,
    map: Type.String({ minLength: 1, maxLength: 64 }),
    team1: Type.Array(Participant, { minItems: 1, maxItems: 64 }),
    team2: Type.Array(Participant, { minItems: 1, maxItems: 64 }),
    team1_score: Type.Integer({ minimum: 0, maximum: 1000 }),
    team2_score: Type.Integer({ minimum: 0, maximum: 1000 }),
    tournament_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  },
  { additionalProperties: false },
);

export const PlayerSessionEventSchema = Type.Object(
  {
    type: Type.Literal('player_session'),
    client_id: ClientId,
    occurred_at: When,
    action: Type.Union([Type.Literal('connect'), Type.Literal('disconnect')]),
    steam_id: SteamId,
    name: Name,
  },
  { additionalProperties: false },
);

// Compiled once: per-event validation is on the hot path of the JSON endpoint. A Map, never a
// plain object: `type` is the sender's text, and `constructor` or `__proto__` must find nothing.
const BY_TYPE = new Map<unknown, ReturnType<typeof Compile<TSchema>>>([
  ['kill', Compile(KillEventSchema)],
  ['match_result', Compile(MatchResultEventSchema)],
  ['player_session', Compile(PlayerSessionEventSchema)],
]);
type Validator = NonNullable<ReturnType<typeof BY_TYPE.get>>;

export const MAX_EVENTS = 10_000;

type KillEvent = Static<typeof KillEventSchema>;
type MatchEvent = Static<typeof MatchResultEventSchema>;
type SessionEvent = Static<typeof PlayerSessionEventSchema>;

export interface ValidEvent {
  clientId: string;
  items: BatchItems;
}

function firstError(validator: Validator, value: unknown): string {
  const [e] = validator.Errors(value);
  if (!e) return 'invalid event';
  const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : 'event';
  return `${where} ${e.message}`;
}

function steam(raw: string, field: string): string {
  const id = accountOf(raw);
  if (!id) throw new Error(`${field} is not a Steam account (${JSON.stringify(raw)})`);
  return id;
}

function toItems(event: KillEvent | MatchEvent | SessionEvent): BatchItems {
  const items: BatchItems = { kills: [], matches: [], seen: new Map() };
  switch (event.type) {
    case 'kill': {
      const killer = { steamId: steam(event.killer.steam_id, 'killer.steam_id'), name: event.killer.name };
      const victim = { steamId: steam(event.victim.steam_id, 'victim.steam_id'), name: event.victim.name };
      // engines/counting.ts: a suicide is not a frag
      if (killer.steamId === victim.steamId)
        throw new Error('killer and victim are the same player (not a frag)');
      items.kills.push({
        killer,
        victim,
        weapon: event.weapon,
        headshot: event.headshot ?? false,
        distance: Math.round((event.distance ?? 0) * 100) / 100,
        round: event.round_number ?? 0,
        occurredAt: Date.parse(event.occurred_at),
        roundKills: 1,
      });
      break;
    }
    case 'match_result': {
      const team = (list: MatchEvent['team1'], name: string) =>
        list.map((p, i) => ({
          steamId: steam(p.steam_id, `${name}.${i}.steam_id`),
          name: p.name,
          participation: p.participation ?? 1,
        }));
      items.matches.push({
        map: event.map,
        team1: team(event.team1, 'team1'),
        team2: team(event.team2, 'team2'),
        team1Score: event.team1_score,
        team2Score: event.team2_score,
        endedAt: Date.parse(event.ended_at),
        ...(event.tournament_id !== undefined ? { tournamentId: event.tournament_id } : {}),
      });
      break;
    }
    case 'player_session':
      items.seen.set(steam(event.steam_id, 'steam_id'), event.name);
      break;
  }
  return items;
}

/**
 * Validates each event; returns the valid ones (as pipeline items) and a reason per rejected one.
 * Kill events of one batch that share a killer and `round_number` count toward most kills in a round.
 * `timeRejection` says why an event's time is refused (out of the ingest window), or null.
 */
export function validateEvents(
  events: unknown[],
  timeRejection: (at: number) => string | null = () => null,
): { valid: ValidEvent[]; rejected: Rejection[] } {
  const valid: ValidEvent[] = [];
  const rejected: Rejection[] = [];
  const roundKills = new Map<string, number>();
  events.forEach((event, index) => {
    const type = typeof event === 'object' && event !== null ? (event as { type?: unknown }).type : undefined;
    const validator = BY_TYPE.get(type);
    if (!validator) {
      rejected.push({ index, reason: 'type must be one of: kill, match_result, player_session' });
      return;
    }
    if (!validator.Check(event)) {
      rejected.push({ index, reason: firstError(validator, event) });
      return;
    }
    const e = event as KillEvent | MatchEvent | SessionEvent;
    const [field, when] =
      e.type === 'match_result' ? ['ended_at', e.ended_at] : ['occurred_at', e.occurred_at];
    const late = timeRejection(Date.parse(when));
    if (late !== null) {
      rejected.push({ index, reason: `${field} ${late}` });
      return;
    }
    try {
      const items = toItems(e);
      for (const k of items.kills) {
        if (e.type === 'kill' && e.round_number !== undefined) {
          const key = `${k.killer.steamId}|${e.round_number}`;
          k.roundKills = (roundKills.get(key) ?? 0) + 1;
          roundKills.set(key, k.roundKills);
        }
      }
      valid.push({ clientId: e.client_id, items });
    } catch (err) {
      rejected.push({ index, reason: err instanceof Error ? err.message : 'invalid event' });
    }
  });
  return { valid, rejected };
}
