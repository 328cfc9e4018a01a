import type { HubEventMap } from '@gaming-hub/client';
import { usageOf, type Arg, type ArgsOf } from './args.js';
import { EventContext, type RunDeps } from './context.js';

export type ChatEvent = HubEventMap['chat.message'];

/** Who may run a command. */
export type Permission =
  | 'everyone'
  /** the server's owner and operators: as the hub lists them, or as the bot's `operators` option says */
  | 'operators'
  /** these hub users (by id) or these SteamIDs */
  | { users?: readonly number[]; steamIds?: readonly string[] };

export interface Cooldown {
  /** milliseconds before the same player may run the command again (on any server) */
  perPlayerMs?: number;
  /** milliseconds before anybody may run it again on the same server */
  perServerMs?: number;
}

export interface CommandSpec<A extends Record<string, Arg<unknown>>> {
  name: string;
  aliases?: readonly string[];
  /** one line, shown by `!help` */
  description: string;
  args?: A;
  cooldown?: Cooldown;
  permission?: Permission;
}

/** The player who typed the command. */
export interface Player {
  name: string;
  steamId: string | null;
  /** their hub user id, when the hub knows them */
  userId: number | null;
  team: string;
}

/** What a command handler gets: its parsed arguments, who asked, and `reply`. */
export class CommandContext<A extends Record<string, Arg<unknown>>> extends EventContext<ChatEvent> {
  constructor(
    event: ChatEvent,
    handler: string,
    deps: RunDeps,
    readonly command: string,
    readonly args: ArgsOf<A>,
  ) {
    super(event, handler, deps);
  }

  get player(): Player {
    const d = this.event.data;
    return { name: d.name, steamId: d.steam_id, userId: d.user_id, team: d.team };
  }

  get server(): { id: number; game: string } {
    return { id: this.event.data.server_id, game: this.event.data.game };
  }

  /** Answers in the chat of the server the command came from (see `say`). */
  reply(text: string): Promise<void> {
    return this.say(this.server, text);
  }
}

export type CommandHandler<A extends Record<string, Arg<unknown>>> = (ctx: CommandContext<A>) => unknown;

export interface RegisteredCommand {
  spec: CommandSpec<Record<string, Arg<unknown>>>;
  handler: CommandHandler<Record<string, Arg<unknown>>>;
}

/** A chat line as a command call: `!name rest…` with the bot's prefix. */
export function readCommandLine(prefix: string, text: string): { name: string; rest: string } | undefined {
  const line = text.trim();
  if (!line.startsWith(prefix)) return undefined;
  const body = line.slice(prefix.length);
  const match = /^(\S+)\s*(.*)$/s.exec(body);
  if (!match?.[1]) return undefined;
  return { name: match[1].toLowerCase(), rest: match[2] ?? '' };
}

/** The usage line of a command: `!top [game] [count]`. */
export const usage = (prefix: string, spec: CommandSpec<Record<string, Arg<unknown>>>): string =>
  `${prefix}${spec.name}${spec.args && Object.keys(spec.args).length ? ` ${usageOf(spec.args)}` : ''}`;

/**
 * Cooldowns in memory, timed by the chat line's own time (`occurred_at`), so that a replay (the
 * test kit, or the event handled again after a crash) decides as the first run did.
 */
export class Cooldowns {
  private readonly until = new Map<string, number>();

  /** milliseconds left before `keys` may run, or 0 (then they are started) */
  take(keys: readonly { key: string; ms: number | undefined }[], at: number): number {
    let wait = 0;
    for (const { key, ms } of keys) if (ms) wait = Math.max(wait, (this.until.get(key) ?? 0) - at);
    if (wait > 0) return wait;
    for (const { key, ms } of keys) if (ms) this.until.set(key, at + ms);
    if (this.until.size > 10_000) for (const [key, end] of this.until) if (end <= at) this.until.delete(key);
    return 0;
  }
}

/**
 * Whether the player may run a command with this permission on this server; `isOperator` is asked
 * only for an operators-only command, and only for a player the hub knows.
 */
export async function permitted(
  permission: Permission | undefined,
  player: Player,
  isOperator: (userId: number) => Promise<boolean>,
): Promise<boolean> {
  if (permission === undefined || permission === 'everyone') return true;
  if (permission === 'operators') return player.userId !== null && isOperator(player.userId);
  return (
    (player.userId !== null && (permission.users ?? []).includes(player.userId)) ||
    (player.steamId !== null && (permission.steamIds ?? []).includes(player.steamId))
  );
}
