import type { HubClient, HubEvent, HubEventMap, HubEventType } from '@gaming-hub/client';
import { arg, parseArgs, type Arg } from './args.js';
import {
  CommandContext,
  Cooldowns,
  permitted,
  readCommandLine,
  usage,
  type ChatEvent,
  type CommandHandler,
  type CommandSpec,
  type RegisteredCommand,
} from './commands.js';
import { EventContext, type RunDeps } from './context.js';
import { hubCommands, hubSource } from './hub.js';
import { jsonLogger, type BotLogger } from './log.js';
import { hubOperators, OperatorCache, type OperatorCacheOptions, type OperatorsLookup } from './operators.js';
import { FileStore, type CursorStore } from './store.js';
import type { CommandChannel, EventSource, Output } from './transport.js';

export interface BotOptions {
  /** names the bot in logs and in its effects' idempotency keys: give each bot of a hub user its own */
  name?: string;
  /**
   * The hub client (`new HubClient({ baseUrl, oauth })`), acting for a server owner or operator
   * who authorized the bot's app with `chat:read` (commands) and `servers:command` (replies).
   */
  hub?: HubClient;
  /** where events come from (default: the hub client's stream) */
  source?: EventSource;
  /** where console commands go (default: the hub client's `POST /v1/servers/{id}/command`) */
  commands?: CommandChannel;
  /** where the position is kept: a store, or a file path (default `.bot/<name>.cursor`) */
  store?: CursorStore | string;
  /** the command prefix (default `!`) */
  prefix?: string;
  /** the first run (no stored cursor) starts `now` (default) or from the `oldest` event the hub keeps */
  startFrom?: 'now' | 'oldest';
  /**
   * Who may run `operators` commands: by default each server's owner and operators as the hub lists
   * them (`GET /v1/servers/{id}/operators`, read with the hub client, cached: see `operatorsCache`).
   * A map or a function of hub user ids per server replaces the hub's list.
   */
  operators?: Readonly<Record<number, readonly number[]>> | OperatorsLookup;
  /** how long the hub's lists of operators are kept (default: 60 s, a refusal rechecks after 5 s) */
  operatorsCache?: OperatorCacheOptions;
  logger?: BotLogger;
  /** false: no `!help` command */
  help?: boolean;
  /** stop on SIGTERM and SIGINT (default true) */
  handleSignals?: boolean;
}

/** Narrows a listener to some servers, games or players (any of the listed, for each that is given). */
export interface EventFilter {
  servers?: readonly number[];
  games?: readonly string[];
  /** hub user ids or SteamIDs: the event names one of them (player, killer, victim, user) */
  players?: readonly (number | string)[];
}

export type Listener<T extends HubEventType> = (
  event: HubEventMap[T],
  ctx: EventContext<HubEventMap[T]>,
) => unknown;

interface RegisteredListener {
  id: string;
  type: HubEventType | '*';
  filter: EventFilter | undefined;
  run: (event: HubEvent, ctx: EventContext) => unknown;
}

const OLDEST = 'evt_0000000000000000';
const PLAYER_FIELDS = [
  'user_id',
  'steam_id',
  'killer_user_id',
  'killer_steam_id',
  'victim_user_id',
  'victim_steam_id',
];

function matches(filter: EventFilter | undefined, event: HubEvent): boolean {
  if (!filter) return true;
  const data = event.data as Record<string, unknown>;
  if (filter.servers && !filter.servers.includes(data.server_id as number)) return false;
  if (filter.games && !filter.games.includes(data.game as string)) return false;
  if (filter.players) {
    const named = PLAYER_FIELDS.map((f) => data[f]).filter((v) => v !== null && v !== undefined);
    const teams = ['team1', 'team2'].flatMap((t) => (Array.isArray(data[t]) ? (data[t] as unknown[]) : []));
    if (!filter.players.some((p) => named.includes(p) || teams.includes(p))) return false;
  }
  return true;
}

/** Waits `ms` or until the signal aborts; either way it leaves no listener on the signal (it lives as long as the bot). */
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    signal.addEventListener('abort', wake, { once: true });
  });

const NOTHING_DONE: ReadonlySet<string> = new Set();

/** The store failed: the bot stops rather than risk handling an event twice or skipping one. */
export class StoreError extends Error {
  override name = 'StoreError';
}

/** A status that will not change by trying again: wrong credentials or scopes, a bad request. */
/**
 * Types the bot asks for only to do better, which a hub older than the bot may not know: refused
 * (`400`, the detail naming the type), the bot asks again without it instead of stopping.
 */
const OPTIONAL_TYPES = ['server.operators_changed'];

/** The optional type a hub refused in `error`, if that is what it refused. */
function refusedOptionalType(error: unknown, types: readonly string[] | undefined): string | undefined {
  const { status, detail } = error as { status?: unknown; detail?: unknown };
  if (status !== 400 || typeof detail !== 'string' || types === undefined) return undefined;
  return OPTIONAL_TYPES.find((type) => types.includes(type) && detail.includes(JSON.stringify(type)));
}

const isFatal = (error: unknown): boolean => {
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429;
};

/**
 * A bot: listeners and chat commands over the hub's event stream, run once per event in order.
 *
 * Reliability: events are handled one at a time, in order. The bot commits an event (the store's
 * cursor) after every handler of it has finished and its effects have settled, so after a crash it
 * resumes with the first event it had not finished: none is skipped. An event it had finished is
 * never handled again. An event that was being handled when it crashed is handled again, and its
 * effects already made (replies, posts) are not made again: each is recorded in the store when it
 * succeeds, and carries a key the receiver deduplicates on (the hub's `Idempotency-Key` for
 * replies), which covers the instant between an effect and its record.
 */
export class Bot {
  readonly name: string;
  readonly prefix: string;
  private readonly listeners: RegisteredListener[] = [];
  private readonly commandList: RegisteredCommand[] = [];
  private readonly byName = new Map<string, RegisteredCommand>();
  private readonly cooldowns = new Cooldowns();
  private readonly log: BotLogger;
  private readonly store: CursorStore;
  private readonly abort = new AbortController();
  private running: Promise<void> | undefined;
  private delivering: (<M>(output: Output<M>, message: M, key: string) => Promise<void>) | undefined;
  private storeFailure: StoreError | undefined;
  /** the hub's lists of operators, when the bot has a hub client and no `operators` of its own */
  private readonly operatorCache: OperatorCache | undefined;
  /** events handled since start (all handlers finished) */
  handled = 0;

  constructor(private readonly options: BotOptions = {}) {
    this.name = options.name ?? 'bot';
    this.prefix = options.prefix ?? '!';
    this.log = options.logger ?? jsonLogger(this.name);
    this.store =
      typeof options.store === 'object'
        ? options.store
        : new FileStore(options.store ?? `.bot/${this.name}.cursor`);
    if (options.operators === undefined && options.hub)
      this.operatorCache = new OperatorCache(hubOperators(options.hub), this.log, options.operatorsCache);
  }

  /** Listens to one event type (or `*`, every type), optionally filtered. */
  on<T extends HubEventType>(type: T | '*', listener: Listener<T>, filter?: EventFilter): this {
    this.listeners.push({
      id: `on:${type}:${this.listeners.length}`,
      type,
      filter,
      run: listener as (event: HubEvent, ctx: EventContext) => unknown,
    });
    return this;
  }

  /** A chat command: `!name args…` in a server's chat (needs `chat:read`). */
  command<A extends Record<string, Arg<unknown>> = Record<string, Arg<unknown>>>(
    spec: CommandSpec<A>,
    handler: CommandHandler<A>,
  ): this {
    const entry = { spec, handler } as unknown as RegisteredCommand;
    for (const name of [spec.name, ...(spec.aliases ?? [])].map((n) => n.toLowerCase())) {
      if (this.byName.has(name)) throw new Error(`two commands are called ${this.prefix}${name}`);
      this.byName.set(name, entry);
    }
    this.commandList.push(entry);
    return this;
  }

  /** The commands, `!help` included, as `!help` lists them. */
  get commands(): readonly CommandSpec<Record<string, Arg<unknown>>>[] {
    return this.commandList.map((c) => c.spec);
  }

  /** Installs a stand-in for every output (the test kit captures what would be sent). */
  interceptOutputs(deliver: <M>(output: Output<M>, message: M, key: string) => Promise<void>): void {
    this.delivering = deliver;
  }

  /** The event types the bot needs from the hub (undefined: every type). */
  private types(): string[] | undefined {
    if (this.listeners.some((l) => l.type === '*')) return undefined;
    const types = new Set<string>(this.listeners.map((l) => l.type));
    if (this.commandList.length > 0) types.add('chat.message');
    // the hub's lists of operators are read again when they change, not only when they expire
    if (this.operatorCache && this.commandList.some((c) => c.spec.permission === 'operators'))
      types.add('server.operators_changed');
    return [...types].sort();
  }

  /**
   * Runs the bot until `stop()` (or SIGTERM/SIGINT): resumes after the stored cursor, handles each
   * event, reconnects with backoff when the hub is unreachable or busy (429, 5xx). Rejects on an
   * error that retrying cannot fix (401/403: credentials or scopes).
   */
  start(): Promise<void> {
    this.running ??= this.run();
    return this.running;
  }

  /** Stops taking events, waits for the handlers in flight and their commit, closes the store. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.running?.catch(() => undefined);
  }

  private async run(): Promise<void> {
    if (this.options.help !== false && !this.byName.has('help')) this.addHelp();
    const onSignal = () => {
      this.log.info('stopping: waiting for the handlers in flight');
      void this.stop();
    };
    if (this.options.handleSignals !== false) {
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
    }
    try {
      const position = await this.store.load();
      let after = position.cursor ?? (this.options.startFrom === 'oldest' ? OLDEST : undefined);
      let done: ReadonlySet<string> = position.effects;
      const source = this.options.source ?? hubSource(this.requireHub('source'));
      let types = this.types();
      let failures = 0;
      while (!this.abort.signal.aborted) {
        try {
          for await (const event of source.events({ after, types, signal: this.abort.signal })) {
            await this.handle(event, done);
            if (this.storeFailure) throw this.storeFailure;
            done = NOTHING_DONE;
            await this.store.commit(event.id).catch((error: unknown) => {
              throw new StoreError('the store could not commit', { cause: error });
            });
            after = event.id;
            this.handled++;
            failures = 0;
            if (this.stopping()) break;
          }
          // a source that ends (recorded events) has nothing more to tell; the hub's stream never ends
          break;
        } catch (error) {
          if (this.stopping()) break;
          const refused = refusedOptionalType(error, types);
          if (refused !== undefined) {
            types = types?.filter((type) => type !== refused);
            this.log.warn('the hub does not tell this event type; going on without it', {
              type: refused,
              ...(refused === 'server.operators_changed'
                ? { effect: 'lists of operators are read again when they expire or refuse someone' }
                : {}),
            });
            continue;
          }
          if (error instanceof StoreError || isFatal(error)) throw error;
          const delay = Math.min(30_000, 1000 * 2 ** failures++) * (0.5 + Math.random() / 2);
          this.log.warn('the event stream failed; reconnecting', {
            error,
            after,
            retry_in_ms: Math.round(delay),
          });
          await sleep(delay, this.abort.signal);
        }
      }
    } finally {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      await this.store.close();
    }
  }

  /** (a method: the signal changes under an await, which a property check would narrow away) */
  private stopping(): boolean {
    return this.abort.signal.aborted;
  }

  private requireHub(what: string): HubClient {
    if (!this.options.hub) throw new Error(`give the bot a hub client (or a ${what} of your own)`);
    return this.options.hub;
  }

  private deps(done: ReadonlySet<string>): RunDeps {
    return {
      bot: this.name,
      commands: this.options.commands ?? {
        run: (serverId, command, key) =>
          hubCommands(this.requireHub('command channel')).run(serverId, command, key),
      },
      hub: this.options.hub,
      log: this.log,
      done,
      record: (key) =>
        this.store.recordEffect(key).catch((error: unknown) => {
          // the effect was made and cannot be recorded: going on could make it twice
          this.storeFailure ??= new StoreError('the store could not record an effect', { cause: error });
          throw this.storeFailure;
        }),
      deliver: (output, message, key) =>
        this.delivering ? this.delivering(output, message, key) : output.send(message, key),
    };
  }

  /** Runs every handler of the event (concurrently), then waits for their effects. */
  private async handle(event: HubEvent, done: ReadonlySet<string>): Promise<void> {
    // before anything after it in the stream is judged (events are handled in order)
    if (event.type === 'server.operators_changed') await this.operatorCache?.changed(event.data.server_id);
    const runs: { ctx: EventContext; run: () => unknown }[] = [];
    let deps: RunDeps | undefined;
    const lazyDeps = () => (deps ??= this.deps(done));
    for (const listener of this.listeners) {
      if ((listener.type !== '*' && listener.type !== event.type) || !matches(listener.filter, event))
        continue;
      const ctx = new EventContext(event, listener.id, lazyDeps());
      runs.push({ ctx, run: () => listener.run(event, ctx) });
    }
    if (event.type === 'chat.message' && this.commandList.length > 0) {
      const run = await this.commandRun(event, lazyDeps);
      if (run) runs.push(run);
    }
    await Promise.all(
      runs.map(async ({ ctx, run }) => {
        try {
          await run();
        } catch (error) {
          this.log.error('a handler failed', {
            event_id: event.id,
            type: event.type,
            handler: ctx.handler,
            error,
          });
        }
        await Promise.all(ctx.pending);
      }),
    );
  }

  /** The command a chat line calls, checked (permission, arguments, cooldown), as a run. */
  private async commandRun(
    event: ChatEvent,
    deps: () => RunDeps,
  ): Promise<{ ctx: EventContext; run: () => unknown } | undefined> {
    const line = readCommandLine(this.prefix, event.data.text);
    const command = line && this.byName.get(line.name);
    if (!line || !command) return undefined;
    const { spec } = command;
    const id = `cmd:${spec.name}`;
    const parsed = parseArgs(spec.args ?? {}, line.rest);
    const ctx = new CommandContext(event, id, deps(), spec.name, parsed.ok ? parsed.args : {});
    if (!(await permitted(spec.permission, ctx.player, (user) => this.isOperator(ctx.server.id, user))))
      return { ctx, run: () => ctx.reply(`${ctx.player.name}: you may not use ${this.prefix}${spec.name}.`) };
    if (!parsed.ok)
      return {
        ctx,
        run: () => ctx.reply(`${parsed.reason}. Usage: ${usage(this.prefix, spec)}`),
      };
    const at = Date.parse(event.data.occurred_at);
    const who = event.data.steam_id ?? `${event.data.server_id}/${event.data.name}`;
    const wait = this.cooldowns.take(
      [
        { key: `p:${spec.name}:${who}`, ms: spec.cooldown?.perPlayerMs },
        { key: `s:${spec.name}:${event.data.server_id}`, ms: spec.cooldown?.perServerMs },
      ],
      at,
    );
    if (wait > 0)
      return {
        ctx,
        run: () => ctx.reply(`${this.prefix}${spec.name} again in ${Math.ceil(wait / 1000)} s.`),
      };
    return { ctx, run: () => command.handler(ctx) };
  }

  /** Whether the user operates the server: the bot's own `operators`, else the hub's list, else nobody. */
  private async isOperator(serverId: number, userId: number): Promise<boolean> {
    const { operators } = this.options;
    if (operators === undefined) return (await this.operatorCache?.includes(serverId, userId)) ?? false;
    try {
      const ids = typeof operators === 'function' ? await operators(serverId) : (operators[serverId] ?? []);
      return ids.includes(userId);
    } catch (error) {
      this.log.warn('the operators option failed', { server_id: serverId, error });
      return false;
    }
  }

  /** `!help`: the commands a player may use, or the usage of one (`!help top`). */
  private addHelp(): void {
    this.command(
      {
        name: 'help',
        description: 'the commands, or how to use one',
        args: { command: arg.string().optional() },
      },
      async (ctx) => {
        const wanted = ctx.args.command?.toLowerCase();
        const one = wanted
          ? this.byName.get(wanted.startsWith(this.prefix) ? wanted.slice(this.prefix.length) : wanted)
          : undefined;
        if (one) return ctx.reply(`${usage(this.prefix, one.spec)}: ${one.spec.description}`);
        const isOperator = (user: number) => this.isOperator(ctx.server.id, user);
        const list: string[] = [];
        for (const c of this.commandList)
          if (c.spec.name !== 'help' && (await permitted(c.spec.permission, ctx.player, isOperator)))
            list.push(`${usage(this.prefix, c.spec)}: ${c.spec.description}`);
        // (`!help` itself is not listed: a bare "Commands:" told such a player nothing)
        if (list.length === 0)
          return ctx.reply(`${ctx.player.name}: there are no commands you may use here.`);
        return ctx.reply(`Commands: ${list.join(' | ')}`);
      },
    );
  }
}

/** A bot (see `Bot`). */
export const createBot = (options: BotOptions = {}): Bot => new Bot(options);
