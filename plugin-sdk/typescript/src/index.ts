export {
  HubPlugin,
  type Counters,
  type PluginOptions,
  type PluginState,
  type ServerStatus,
} from './plugin.js';
export {
  encodeEvent,
  InvalidEventError,
  type ChatEvent,
  type GameEvent,
  type KillEvent,
  type MapChangeEvent,
  type MatchResultEvent,
  type Participant,
  type Player,
  type PlayerSessionEvent,
  type RoundEvent,
  type Time,
  type WireEvent,
} from './events.js';
export type { Command, CommandHandler, CommandResult } from './commands.js';
export { HubError } from './transport.js';
export { backoffDelay, retryAfterMs, BACKOFF, type BackoffOptions } from './backoff.js';
export { Spool } from './spool.js';
export { VERSION } from './version.js';
