import type { HubEvent } from '@gaming-hub/client';
import type { Bot } from './bot.js';
import { MemoryStore } from './store.js';
import type { CommandChannel, EventSource, Output } from './transport.js';

/** A console command the bot ran: for a reply, `text` is what the players see. */
export interface CapturedCommand {
  serverId: number;
  command: string;
  /** the said text (`say "…"` unquoted), or undefined for another command */
  text: string | undefined;
  key: string;
}

export interface CapturedPost {
  output: string;
  message: unknown;
  key: string;
}

const saidText = (command: string): string | undefined => {
  const quoted = /^say "(.*)"$/s.exec(command);
  if (quoted) return quoted[1];
  return command.startsWith('say ') ? command.slice(4) : undefined;
};

/** Recorded events as a source: each once, in order, then the source ends. */
export const recordedEvents = (events: readonly HubEvent[]): EventSource => ({
  async *events({ after }) {
    for (const event of events) if (after === undefined || event.id > after) yield event;
  },
});

/**
 * Runs bots against recorded events without a hub: the commands they would send and the posts
 * they would make are captured, not sent. Make the bot with `kit.options` (a memory store, the
 * kit's command channel), then `await kit.run(bot, events)`.
 *
 *     const kit = new BotTestKit();
 *     const bot = createBot({ ...kit.options, name: 'ranks' });
 *     bot.command({ name: 'ping', description: 'pong' }, (ctx) => ctx.reply('pong'));
 *     await kit.run(bot, [chatEvent({ text: '!ping' })]);
 *     assert.deepEqual(kit.replies(), ['pong']);
 */
export class BotTestKit {
  readonly commands: CapturedCommand[] = [];
  readonly posts: CapturedPost[] = [];
  readonly store = new MemoryStore();
  /** make a command fail (a server down): return an Error to throw for it */
  failCommand: ((serverId: number, command: string) => Error | undefined) | undefined;

  private readonly channel: CommandChannel = {
    run: async (serverId, command, key) => {
      const failure = this.failCommand?.(serverId, command);
      if (failure) throw failure;
      this.commands.push({ serverId, command, text: saidText(command), key });
    },
  };

  private events: readonly HubEvent[] = [];
  private readonly source: EventSource = {
    events: (options) => recordedEvents(this.events).events(options),
  };

  /** what to give `createBot` besides your own options */
  get options() {
    return {
      store: this.store,
      commands: this.channel,
      source: this.source,
      handleSignals: false,
      logger: this.logger,
      startFrom: 'oldest' as const,
    };
  }

  readonly logged: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  readonly logger = {
    info: (message: string, fields: Record<string, unknown> = {}) =>
      void this.logged.push({ level: 'info', message, fields }),
    warn: (message: string, fields: Record<string, unknown> = {}) =>
      void this.logged.push({ level: 'warn', message, fields }),
    error: (message: string, fields: Record<string, unknown> = {}) =>
      void this.logged.push({ level: 'error', message, fields }),
  };

  /** Handles the events with the bot, then stops it. */
  async run(bot: Bot, events: readonly HubEvent[]): Promise<void> {
    bot.interceptOutputs(async <M>(output: Output<M>, message: M, key: string) => {
      this.posts.push({ output: output.name, message, key });
    });
    this.events = events;
    await bot.start();
  }

  /** The texts said in game, in order (on one server, or all). */
  replies(serverId?: number): string[] {
    return this.commands
      .filter((c) => serverId === undefined || c.serverId === serverId)
      .flatMap((c) => (c.text === undefined ? [] : [c.text]));
  }
}

let sequence = 0;
const nextId = () => `evt_${String(++sequence).padStart(16, '0')}`;

/** A recorded `chat.message` for tests (fields you leave out get plausible values). */
export function chatEvent(
  data: Partial<Extract<HubEvent, { type: 'chat.message' }>['data']> & { text: string },
  id = nextId(),
): Extract<HubEvent, { type: 'chat.message' }> {
  return {
    id,
    type: 'chat.message',
    created_at: data.occurred_at ?? '2026-11-20T18:00:00.000Z',
    data: {
      server_id: 3,
      game: 'cs2',
      steam_id: '76561198000000042',
      user_id: 42,
      name: 'ace',
      team: 'CT',
      channel: 'all',
      occurred_at: '2026-11-20T18:00:00.000Z',
      ...data,
    },
  };
}

/** Any recorded event for tests: `event('match.ended', data)`. */
export function recordedEvent<T extends HubEvent['type']>(
  type: T,
  data: Extract<HubEvent, { type: T }>['data'],
  id = nextId(),
): Extract<HubEvent, { type: T }> {
  return { id, type, created_at: '2026-11-20T18:00:00.000Z', data } as Extract<HubEvent, { type: T }>;
}
