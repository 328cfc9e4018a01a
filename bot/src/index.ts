export { Bot, createBot, type BotOptions, type EventFilter, type Listener } from './bot.js';
export { arg, ArgBuilder, parseArgs, usageOf, type Arg, type ArgsOf } from './args.js';
export {
  CommandContext,
  readCommandLine,
  usage,
  type ChatEvent,
  type CommandHandler,
  type CommandSpec,
  type Cooldown,
  type Permission,
  type Player,
} from './commands.js';
export { EffectError, EventContext } from './context.js';
export { hubCommands, hubSource } from './hub.js';
export { jsonLogger, silentLogger, type BotLogger } from './log.js';
export { hubOperators, OperatorCache, type OperatorCacheOptions, type OperatorsLookup } from './operators.js';
export {
  DISCORD_LIMITS,
  discordWebhook,
  fitDiscord,
  httpWebhook,
  OutputError,
  type DiscordEmbed,
  type DiscordMessage,
  type WebhookOutputOptions,
} from './outputs.js';
export { chatOf, GAME_CHAT, sayCommands, splitMessage, type GameChat } from './say.js';
export {
  FileStore,
  MemoryStore,
  type CursorStore,
  type FileStoreOptions,
  type StoredPosition,
} from './store.js';
export type { CommandChannel, EventSource, Output } from './transport.js';
