import { Type, type Static, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { BatchItems, Rejection } from '../pipeline.js';
import {
  EosIdField,
  identityOf,
  MinecraftUuidField,
  PlayerName,
  playerKey,
  PlayerSchema,
  SteamIdField,
  type PlayerBody,
} from '../../identities/player.js';

/**
 * Typed JSON events for games with a plugin (Rust via Oxide/uMod, Minecraft, any game server that
 * can POST JSON; docs/game-servers.md). Each event carries a `client_id` unique per server: a
 * resent batch is counted once. Every event is validated on its own; a bad one is rejected with a
 * reason, the rest go through. A player is a name and one platform id (identities/player.ts).
 */
const Name = PlayerName;
const ClientId = Type.String({
  minLength: 1,
  maxLength: 128,
  description: 'unique per server; an event whose client_id was already accepted is a duplicate',
  examples: ['srv1-000042'],
});
const When = Type.String({
  format: 'date-time',
  description: 'ISO 8601 time of the event',
  examples: ['2026-11-20T18:04:11Z'],
});
const Player = Type.Ref('IngestPlayer');
const Participant = Type.Object(
  {
    name: Name,
    steam_id: Type.Optional(SteamIdField),
    minecraft_uuid: Type.Optional(MinecraftUuidField),
    eos_id: Type.Optional(EosIdField),
    participation: Type.Optional(
      Type.Number({ minimum: 0, maximum: 1, description: 'share of the match played, default 1' }),
    ),
  },
  {
    $id: 'IngestMatchParticipant',
    title: 'IngestMatchParticipant',
    additionalProperties: false,
    description:
      'A player of a team: `name`, exactly one of `steam_id`, `minecraft_uuid`, `eos_id`, and `participation`.',
  },
);
const kind = <T extends string>(type: T) =>
  Type.Literal(type, { description: `the event kind: \`${type}\`` });
const named = (id: string, description: string) => ({
  $id: id,
  title: id,
  additionalProperties: false,
  description,
});

export const KillEventSchema = Type.Object(
  {
    type: kind('kill'),
    client_id: ClientId,
    occurred_at: When,
    killer: Player,
    victim: Player,
    weapon: Type.String({ minLength: 1, maxLength: 32, examples: ['rifle.ak'] }),
    headshot: Type.Optional(Type.Boolean()),
    distance: Type.Optional(Type.Number({ minimum: 0, maximum: 100000, description: 'metres' })),
    round_number: Type.Optional(Type.Integer({ minimum: 0, maximum: 10000 })),
  },
  named('IngestKillEvent', 'A kill (a suicide is refused: it is not a frag).'),
);

export const MatchResultEventSchema = Type.Object(
  {
    type: kind('match_result'),
    client_id: ClientId,
    ended_at: When,
    map: Type.String({ minLength: 1, maxLength: 64, examples: ['de_dust2'] }),
    team1: Type.Array(Type.Ref('IngestMatchParticipant'), { minItems: 1, maxItems: 64 }),
    team2: Type.Array(Type.Ref('IngestMatchParticipant'), { minItems: 1, maxItems: 64 }),
    team1_score: Type.Integer({ minimum: 0, maximum: 1000 }),
    team2_score: Type.Integer({ minimum: 0, maximum: 1000 }),
    tournament_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  },
  named('IngestMatchResultEvent', 'A match played to its end, with its teams and score.'),
);

export const PlayerSessionEventSchema = Type.Object(
  {
    type: kind('player_session'),
    client_id: ClientId,
    occurred_at: When,
    action: Type.Union([Type.Literal('connect'), Type.Literal('disconnect')]),
    player: Type.Optional(Player),
    steam_id: Type.Optional(SteamIdField),
    name: Type.Optional(Name),
  },
  named(
    'IngestPlayerSessionEvent',
    'A player connected or left: `player`, or (the older form) `steam_id` and `name`. A Steam id seen for the first time gets a hub profile.',
  ),
);

export const ChatEventSchema = Type.Object(
  {
    type: kind('chat'),
    client_id: ClientId,
    occurred_at: When,
    player: Player,
    message: Type.String({ minLength: 1, maxLength: 512, examples: ['!rank'] }),
    team_only: Type.Optional(Type.Boolean({ description: 'said to the team only (default false)' })),
  },
  named(
    'IngestChatEvent',
    "A chat message: told as a `chat.message` event to the server's owner and operators (scope `chat:read`), never stored.",
  ),
);

export const RoundEventSchema = Type.Object(
  {
    type: kind('round'),
    client_id: ClientId,
    occurred_at: When,
    action: Type.Union([Type.Literal('start'), Type.Literal('end')]),
    round_number: Type.Integer({ minimum: 0, maximum: 10000 }),
    team1_score: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    team2_score: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    winner: Type.Optional(Type.Union([Type.Literal('team1'), Type.Literal('team2'), Type.Literal('draw')])),
  },
  named(
    'IngestRoundEvent',
    'A round started or ended: told as `round.started` / `round.ended` on the server\u2019s current map. Scores and winner are checked, not stored (the match result carries the score).',
  ),
);

export const MapChangeEventSchema = Type.Object(
  {
    type: kind('map_change'),
    client_id: ClientId,
    occurred_at: When,
    map: Type.String({ minLength: 1, maxLength: 64, examples: ['de_mirage'] }),
  },
  named('IngestMapChangeEvent', 'The server changed map: its `map` in `/servers` and `/v1/servers` follows.'),
);

/** Every kind, in the order the document lists them. */
export const EVENT_SCHEMAS = [
  PlayerSessionEventSchema,
  ChatEventSchema,
  KillEventSchema,
  RoundEventSchema,
  MatchResultEventSchema,
  MapChangeEventSchema,
];

/** Each kind's type, component name and description (for the document's words). */
export const EVENT_KINDS = EVENT_SCHEMAS.map((schema) => {
  const { $id, description } = schema as unknown as { $id: string; description: string };
  return { type: schema.properties.type.const, id: $id, description };
});

// Compiled once: per-event validation is on the hot path of the JSON endpoint. A Map, never a
// plain object: `type` is the sender's text, and `constructor` or `__proto__` must find nothing.
const REFERENCED = { IngestPlayer: PlayerSchema, IngestMatchParticipant: Participant };
/** The shared parts the kinds reference by name (published as components of their own). */
export const SHARED_SCHEMAS = [PlayerSchema, Participant];
interface Validator {
  Check(value: unknown): boolean;
  Errors(value: unknown): { instancePath: string; message: string }[];
}
const BY_TYPE = new Map<unknown, Validator>(
  EVENT_SCHEMAS.map((schema) => [schema.properties.type.const, Compile(REFERENCED, schema as TSchema)]),
);
const KINDS = EVENT_KINDS.map((k) => k.type).join(', ');

export const MAX_EVENTS = 10_000;

type WithPlayers<T, K extends string> = Omit<T, K> & Record<K, PlayerBody>;
type KillEvent = WithPlayers<Static<typeof KillEventSchema>, 'killer' | 'victim'>;
type ParticipantBody = Static<typeof Participant>;
type MatchEvent = Omit<Static<typeof MatchResultEventSchema>, 'team1' | 'team2'> & {
  team1: ParticipantBody[];
  team2: ParticipantBody[];
};
type SessionEvent = Omit<Static<typeof PlayerSessionEventSchema>, 'player'> & { player?: PlayerBody };
type ChatEvent = WithPlayers<Static<typeof ChatEventSchema>, 'player'>;
type RoundEvent = Static<typeof RoundEventSchema>;
type MapEvent = Static<typeof MapChangeEventSchema>;
type AnyEvent = KillEvent | MatchEvent | SessionEvent | ChatEvent | RoundEvent | MapEvent;

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

/** The pipeline's key for a player object (a SteamID64, or `minecraft:…` / `eos:…`). */
const keyOf = (player: Partial<Record<string, unknown>>, where: string): string =>
  playerKey(identityOf(player, where));

function sessionPlayer(event: SessionEvent): { key: string; name: string } {
  if (event.player !== undefined) {
    if (event.steam_id !== undefined || event.name !== undefined)
      throw new Error('player_session has either player or steam_id and name, not both');
    return { key: keyOf(event.player, 'player'), name: event.player.name };
  }
  if (event.steam_id === undefined || event.name === undefined)
    throw new Error('player_session must have player (or steam_id and name)');
  return { key: keyOf({ steam_id: event.steam_id }, 'event'), name: event.name };
}

function toItems(event: AnyEvent): BatchItems {
  const items: BatchItems = { kills: [], matches: [], seen: new Map() };
  switch (event.type) {
    case 'kill': {
      const killer = { steamId: keyOf(event.killer, 'killer'), name: event.killer.name };
      const victim = { steamId: keyOf(event.victim, 'victim'), name: event.victim.name };
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
      const team = (list: ParticipantBody[], name: string) =>
        list.map((p, i) => ({
          steamId: keyOf(p, `${name}.${i}`),
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
    case 'player_session': {
      const { key, name } = sessionPlayer(event);
      items.seen.set(key, name);
      break;
    }
    case 'chat':
      items.plugin = [
        {
          kind: 'chat',
          player: { key: keyOf(event.player, 'player'), name: event.player.name },
          text: event.message,
          channel: event.team_only === true ? 'team' : 'all',
          at: Date.parse(event.occurred_at),
        },
      ];
      break;
    case 'round':
      items.plugin = [{ kind: 'round', action: event.action, round: event.round_number }];
      break;
    case 'map_change':
      items.plugin = [{ kind: 'map_change', map: event.map }];
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
      rejected.push({ index, reason: `type must be one of: ${KINDS}` });
      return;
    }
    if (!validator.Check(event)) {
      rejected.push({ index, reason: firstError(validator, event) });
      return;
    }
    const e = event as AnyEvent;
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
