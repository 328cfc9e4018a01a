import { Type } from 'typebox';
import { defineEvent, eventOf } from '../events/define.js';
import type { NewEvent } from '../events/outbox.js';
import { Count, Game, Id, Text, UserId, type GameCode } from '../events/fields.js';
import { REGIONS } from './regions.js';
import { StringEnum } from '../../http/schemas.js';

/**
 * Events of game servers: the registry (`hub servers`) and the poller, public (servers:read); the
 * commands and the operators, private to the people concerned (servers:command).
 */

const ServerRef = { server_id: Id('Game server', 3), game: Game() };
const SERVER_REF = { server_id: 3, game: 'cs2' as const };
const Status = (description: string) =>
  Type.Union([Type.Literal('online'), Type.Literal('offline')], { description, examples: ['online'] });

export const SERVER_ADDED = defineEvent({
  type: 'server.added',
  description:
    'An operator registered a game server (`hub servers add`); it shows once the poller reaches it.',
  properties: {
    ...ServerRef,
    name: Text('Server name', 'Hub #1 Dust2'),
    region: StringEnum(REGIONS, { description: 'Region', examples: ['eu-west'] }),
  },
  example: { ...SERVER_REF, name: 'Hub #1 Dust2', region: 'eu-west' },
  scope: 'servers:read',
  audience: 'public',
});

export const SERVER_REMOVED = defineEvent({
  type: 'server.removed',
  description:
    'An operator removed a game server: its token is revoked and it leaves the list; its kills stay.',
  properties: ServerRef,
  example: SERVER_REF,
  scope: 'servers:read',
  audience: 'public',
});

export const SERVER_REGION_CHANGED = defineEvent({
  type: 'server.region_changed',
  description: 'An operator moved a game server to another region.',
  properties: {
    ...ServerRef,
    region: StringEnum(REGIONS, { description: 'New region', examples: ['eu-west'] }),
  },
  example: { ...SERVER_REF, region: 'eu-west' },
  scope: 'servers:read',
  audience: 'public',
});

export const SERVER_STATUS_CHANGED = defineEvent({
  type: 'server.status_changed',
  description:
    'A server came online (it answered a status query, or its plugin sent a heartbeat) or went offline (it missed several queries in a row, or its plugin fell silent for 60 s).',
  properties: { ...ServerRef, status: Status('New status'), previous_status: Status('Status before') },
  example: { ...SERVER_REF, status: 'online', previous_status: 'offline' },
  scope: 'servers:read',
  audience: 'public',
});

export const SERVER_MAP_CHANGED = defineEvent({
  type: 'server.map_changed',
  description: 'The poller saw an online server on another map.',
  properties: {
    ...ServerRef,
    map: Text('New map', 'de_inferno'),
    previous_map: Text('Map before', 'de_dust2'),
  },
  example: { ...SERVER_REF, map: 'de_inferno', previous_map: 'de_dust2' },
  scope: 'servers:read',
  audience: 'public',
});

export const SERVER_PLAYERS_CHANGED = defineEvent({
  type: 'server.players_changed',
  description: 'The poller saw a different player count on an online server (at most one event per poll).',
  properties: {
    ...ServerRef,
    players: Count('Players now', 12),
    previous_players: Count('Players before', 10),
    max_players: Count('Slots', 20),
  },
  example: { ...SERVER_REF, players: 12, previous_players: 10, max_players: 20 },
  scope: 'servers:read',
  audience: 'public',
});

export const SERVER_COMMAND_EXECUTED = defineEvent({
  type: 'server.command_executed',
  description:
    'A remote-console command was sent to a server (`POST /v1/servers/{id}/command`), or failed to be: every attempt the server’s command history records, told to the user who sent it.',
  properties: {
    ...ServerRef,
    command_id: Id('Audited command', 77),
    user_id: UserId('Who sent it'),
    command: Text('The command', 'changelevel de_inferno'),
    ok: Type.Boolean({ description: 'The server answered', examples: [true] }),
  },
  example: { ...SERVER_REF, command_id: 77, user_id: 42, command: 'changelevel de_inferno', ok: true },
  scope: 'servers:command',
  audience: 'user',
});

export const SERVER_COMMAND_COMPLETED = defineEvent({
  type: 'server.command_completed',
  description:
    'A command queued for a plugin-channel server reached its final status: the plugin ran it (`ok`), reported a failure (`error`), or did not acknowledge it in time (`expired`). Told once per command to the user who sent it, whether or not they were still waiting for the answer.',
  properties: {
    ...ServerRef,
    command_id: Type.String({
      pattern: '^[1-9][0-9]*$',
      description: 'The queued command',
      examples: ['812'],
    }),
    user_id: UserId('Who sent it'),
    status: StringEnum(['ok', 'error', 'expired'] as const, {
      description: 'Final status',
      examples: ['ok'],
    }),
    output: Type.String({
      description: 'The first 2,000 characters of what the plugin answered (empty when it expired)',
      examples: ['Kicked player Bob'],
    }),
    duration_ms: Count('How long it ran, as the plugin measured it (or from issue to expiry)', 12),
  },
  example: {
    ...SERVER_REF,
    command_id: '812',
    user_id: 42,
    status: 'ok',
    output: 'Kicked player Bob',
    duration_ms: 12,
  },
  scope: 'servers:command',
  audience: 'user',
});

export const SERVER_OPERATORS_CHANGED = defineEvent({
  type: 'server.operators_changed',
  description:
    'A user was granted the right to operate a game server (`hub servers grant`) or had it taken back (`hub servers revoke`): who may send it commands and read its chat changed, and `GET /v1/servers/{id}/operators` lists it so from now on. Private like that list: told to the server\u2019s owner, each of its operators after the change and the user granted or revoked (one event each, so each reads their own), through an app they authorized with `servers:command`; never to an API key. A grant the user already had, or a revocation of one they did not have, changes nothing and tells nothing.',
  properties: {
    ...ServerRef,
    user_id: UserId('The user granted or revoked'),
    change: StringEnum(['granted', 'revoked'] as const, {
      description:
        '`granted`: the user may now operate the server; `revoked`: no longer (unless they own it)',
      examples: ['granted'],
    }),
  },
  example: { ...SERVER_REF, user_id: 42, change: 'granted' },
  scope: 'servers:command',
  audience: 'user',
});

type Status = 'online' | 'offline';

/** A server's live state as the poller keeps it. */
export interface LiveState {
  status: Status;
  map: string;
  players: number;
  max_players: number;
}

/** The fields every server event starts with, from the server's row. */
export const serverRef = (server: { id: number; game: string }) => ({
  server_id: server.id,
  game: server.game as GameCode,
});

/** What one poll changed: status, map (online servers), player count (online servers). */
export function pollEvents(before: LiveState & { id: number; game: string }, after: LiveState): NewEvent[] {
  const ref = serverRef(before);
  const events: NewEvent[] = [];
  if (before.status !== after.status)
    events.push(
      eventOf(SERVER_STATUS_CHANGED, { ...ref, status: after.status, previous_status: before.status }),
    );
  if (after.status !== 'online') return events;
  if (before.map !== after.map && after.map !== '')
    events.push(eventOf(SERVER_MAP_CHANGED, { ...ref, map: after.map, previous_map: before.map }));
  if (before.players !== after.players)
    events.push(
      eventOf(SERVER_PLAYERS_CHANGED, {
        ...ref,
        players: after.players,
        previous_players: before.players,
        max_players: after.max_players,
      }),
    );
  return events;
}

/** An audited command (`command_id`: its entry in the server's command history), told to its sender. */
export const commandEvent = (
  entry: { server_id: number; user_id: number; command: string; status: string },
  game: string,
  commandId: number,
): NewEvent =>
  eventOf(
    SERVER_COMMAND_EXECUTED,
    {
      ...serverRef({ id: entry.server_id, game }),
      command_id: commandId,
      user_id: entry.user_id,
      command: entry.command,
      ok: entry.status === 'ok',
    },
    { userId: entry.user_id },
  );

/** A queued command's final status, told to its sender. */
export const commandCompletedEvent = (
  row: {
    id: number;
    server_id: number;
    user_id: number;
    status: 'pending' | 'delivered' | 'ok' | 'error' | 'expired';
  },
  game: string,
  output: string,
  durationMs: number,
): NewEvent =>
  eventOf(
    SERVER_COMMAND_COMPLETED,
    {
      ...serverRef({ id: row.server_id, game }),
      command_id: String(row.id),
      user_id: row.user_id,
      status: row.status === 'ok' || row.status === 'error' ? row.status : 'expired',
      output,
      duration_ms: durationMs,
    },
    { userId: row.user_id },
  );

/** A grant or revocation, told to each reader: the owner, the operators after it, the user changed. */
export const operatorsChangedEvents = (
  server: { id: number; game: string },
  userId: number,
  change: 'granted' | 'revoked',
  readers: readonly number[],
): NewEvent[] =>
  readers.map((reader) =>
    eventOf(SERVER_OPERATORS_CHANGED, { ...serverRef(server), user_id: userId, change }, { userId: reader }),
  );

export const SERVER_EVENTS = [
  SERVER_ADDED,
  SERVER_REMOVED,
  SERVER_REGION_CHANGED,
  SERVER_STATUS_CHANGED,
  SERVER_MAP_CHANGED,
  SERVER_PLAYERS_CHANGED,
  SERVER_COMMAND_EXECUTED,
  SERVER_COMMAND_COMPLETED,
  SERVER_OPERATORS_CHANGED,
];
