import { backoffDelay } from './backoff.js';
import { batchAction, BATCH_DEFAULTS, clientIds, newInstanceId, nextBatchLength } from './batching.js';
import {
  parseCommand,
  RecentResults,
  resultAction,
  runCommand,
  type CommandHandler,
  type CommandResult,
} from './commands.js';
import { encodeEvent, type GameEvent, type Player, type WireEvent } from './events.js';
import { nextHeartbeat } from './heartbeat.js';
import { Spool } from './spool.js';
import { HubError, Transport, type Answer, type FetchLike } from './transport.js';
import { SDK_NAME } from './version.js';
import { Wake } from './wake.js';

/** What the heartbeat reports, read from the game when each heartbeat is sent. */
export interface ServerStatus {
  players: number;
  max_players: number;
  map: string;
  /** the game server's version */
  version: string;
}

export interface PluginOptions {
  /** e.g. `https://hub.example.com` */
  hubUrl: string;
  /** the server's ingest token (`hub servers add` prints it) */
  token: string;
  /** where unsent events wait on disk: one directory per server, never shared by two processes */
  spoolDir: string;
  /** your plugin's name/version, sent with the heartbeat beside the SDK's */
  name?: string;
  /** heartbeats run when given: the server shows online from them, even behind NAT */
  status?: () => ServerStatus;
  /** the command loop runs when a handler is registered (here or with `command()`) */
  commands?: Record<string, CommandHandler>;
  /** a partial batch leaves after this long (default 250 ms) */
  flushIntervalMs?: number;
  maxBatchEvents?: number;
  maxBatchBytes?: number;
  /** the spool's bound: past it the oldest events are dropped and counted (default 100,000) */
  maxSpoolEvents?: number;
  requestTimeoutMs?: number;
  /** the command long-poll's wait, 0..30 s (default 25) */
  pollWaitS?: number;
  /** close() sends what it can for this long, then spools the rest (default 5,000 ms) */
  closeTimeoutMs?: number;
  /** the hub refused the token: every loop has stopped */
  onRevoked?: () => void;
  /** something the SDK could not do (a batch dropped, a result forgotten); it carries on */
  onError?: (error: Error) => void;
  /** for tests: the clock (epoch ms), the jitter's random draw, fetch, the client-id instance */
  clock?: () => number;
  random?: () => number;
  fetch?: FetchLike;
  instance?: string;
}

export interface Counters {
  /** events the hub settled: accepted or counted as duplicates */
  sent: number;
  /** of those, duplicates of events it had already (resends) */
  duplicates: number;
  /** events the hub refused one by one in its answer (not resent) */
  rejected: number;
  /** events written to the spool (starts at the number found there when opened) */
  spooled: number;
  /** events lost: the oldest past the spool's bound, or a batch the hub can never take */
  dropped: number;
  commands_run: number;
  commands_failed: number;
  commands_expired: number;
  heartbeats: number;
}

export type PluginState = 'new' | 'running' | 'revoked' | 'closed';

interface Queued {
  event: WireEvent;
  json: string;
  bytes: number;
}
const queued = (event: WireEvent): Queued => {
  const json = JSON.stringify(event);
  return { event, json, bytes: Buffer.byteLength(json) };
};
const LONG_MS = 3_600_000;

/**
 * A game server's link to the hub. `send()` and the shortcuts only queue (they never wait for the
 * network); a sender delivers batches in order, spooling them to disk while the hub is unreachable;
 * the command loop and the heartbeat run on their own timers.
 */
export class HubPlugin {
  readonly counters: Counters = {
    sent: 0,
    duplicates: 0,
    rejected: 0,
    spooled: 0,
    dropped: 0,
    commands_run: 0,
    commands_failed: 0,
    commands_expired: 0,
    heartbeats: 0,
  };
  /** the hub's id of this server, once a heartbeat was answered */
  serverId: number | undefined;

  private stateNow: PluginState = 'new';
  /** your plugin's name beside the SDK's: the User-Agent and the heartbeat's `plugin` */
  private readonly agent: string;
  private readonly transport: Transport;
  private readonly clock: () => number;
  private readonly random: () => number;
  private readonly nextClientId: () => string;
  private readonly handlers = new Map<string, CommandHandler>();
  private readonly results = new RecentResults();
  private readonly queue: Queued[] = [];
  private spool: Spool | undefined;
  /** aborted by close() and on revocation: the command loop and the heartbeat end */
  private readonly stop = new AbortController();
  /** aborted when close() has waited long enough: an event batch in flight is given up (spooled) */
  private readonly hardStop = new AbortController();
  private readonly senderWake: Wake;
  private readonly loops: Promise<void>[] = [];
  private sender: Promise<void> | undefined;
  private commandLoop: Promise<void> | undefined;
  private closing = false;
  private flushDue = false;
  private retryAt = 0;
  private attempt = 0;
  private flushWaiters: ((flushed: boolean) => void)[] = [];
  private readonly o: Required<
    Pick<
      PluginOptions,
      | 'flushIntervalMs'
      | 'maxBatchEvents'
      | 'maxBatchBytes'
      | 'maxSpoolEvents'
      | 'requestTimeoutMs'
      | 'pollWaitS'
      | 'closeTimeoutMs'
    >
  >;

  constructor(private readonly options: PluginOptions) {
    this.o = {
      flushIntervalMs: options.flushIntervalMs ?? 250,
      maxBatchEvents: options.maxBatchEvents ?? BATCH_DEFAULTS.maxEvents,
      maxBatchBytes: options.maxBatchBytes ?? BATCH_DEFAULTS.maxBytes,
      maxSpoolEvents: options.maxSpoolEvents ?? 100_000,
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      pollWaitS: Math.min(30, Math.max(0, options.pollWaitS ?? 25)),
      closeTimeoutMs: options.closeTimeoutMs ?? 5_000,
    };
    this.clock = options.clock ?? Date.now;
    this.random = options.random ?? Math.random;
    this.nextClientId = clientIds(options.instance ?? newInstanceId());
    this.agent = options.name ? `${options.name} ${SDK_NAME}` : SDK_NAME;
    this.transport = new Transport({
      hubUrl: options.hubUrl,
      token: options.token,
      userAgent: this.agent,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    this.senderWake = new Wake(this.hardStop.signal);
    for (const [name, handler] of Object.entries(options.commands ?? {})) this.handlers.set(name, handler);
  }

  get state(): PluginState {
    return this.stateNow;
  }

  /** events waiting in memory and on disk */
  get pending(): number {
    return this.queue.length + (this.spool?.size ?? 0);
  }

  /** Opens the spool (its events go first) and starts the sender, the heartbeat and the command loop. */
  async start(): Promise<this> {
    if (this.stateNow !== 'new') throw new Error(`start() on a plugin that is ${this.stateNow}`);
    this.spool = await Spool.open(this.options.spoolDir, this.o.maxSpoolEvents);
    this.counters.spooled = this.spool.found;
    this.counters.dropped = this.spool.dropped;
    this.stateNow = 'running';
    this.sender = this.runSender();
    if (this.options.status) this.loops.push(this.runHeartbeat(this.options.status));
    if (this.handlers.size > 0) this.startCommands();
    return this;
  }

  /** Queues one event (validated now: an InvalidEventError says which field is wrong). */
  send(event: GameEvent): WireEvent {
    const wire = encodeEvent(event, this.nextClientId, this.clock);
    if (this.stateNow === 'closed') throw new Error('send() after close()');
    this.queue.push(queued(wire));
    if (this.queue.length === 1 || this.queue.length >= this.o.maxBatchEvents) this.senderWake.wake();
    return wire;
  }

  connect = (player: Player, at?: Date | number): WireEvent => this.session('connect', player, at);
  disconnect = (player: Player, at?: Date | number): WireEvent => this.session('disconnect', player, at);
  chat = (player: Player, message: string, teamOnly?: boolean): WireEvent =>
    this.send({ type: 'chat', player, message, ...(teamOnly === undefined ? {} : { team_only: teamOnly }) });
  mapChange = (map: string): WireEvent => this.send({ type: 'map_change', map });

  private session(
    action: 'connect' | 'disconnect',
    player: Player,
    at: Date | number | undefined,
  ): WireEvent {
    return this.send({
      type: 'player_session',
      action,
      player,
      ...(at === undefined ? {} : { occurred_at: at }),
    });
  }

  /** Registers (or replaces) the handler of a command name; starts the command loop if needed. */
  command(name: string, handler: CommandHandler): this {
    this.handlers.set(name, handler);
    if (this.stateNow === 'running') this.startCommands();
    return this;
  }

  /**
   * Sends everything queued now. Resolves true once memory and spool are empty, false when the hub
   * did not take it (it is spooled and will be sent when the hub is back).
   */
  flush(): Promise<boolean> {
    if (this.stateNow !== 'running') return Promise.resolve(this.pending === 0);
    if (this.pending === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      this.flushWaiters.push(resolve);
      this.flushDue = true;
      this.senderWake.wake();
    });
  }

  /** Stops the loops, sends what it can within closeTimeoutMs and spools the rest. */
  async close(): Promise<void> {
    if (this.stateNow === 'closed' || this.closing) return;
    this.closing = true;
    this.stop.abort();
    this.senderWake.wake();
    const deadline = setTimeout(() => this.hardStop.abort(), this.o.closeTimeoutMs);
    try {
      await this.sender;
    } finally {
      clearTimeout(deadline);
    }
    this.hardStop.abort();
    await Promise.all(this.loops);
    await this.spoolQueue();
    this.resolveFlush(this.pending === 0);
    this.stateNow = 'closed';
  }

  /**
   * Remembers a command's result as if it had run here (a plugin that keeps results across its own
   * restarts hands them back): a redelivery of that id posts it again instead of running it.
   */
  rememberResult(id: string, result: CommandResult): void {
    this.results.set(id, result);
  }

  /** Links a player's identity to the hub account that made `code` (shown in the portal). */
  async link(player: Player, code: string): Promise<{ user_id: number; username: string }> {
    return (await this.direct('/links', { player, code })) as { user_id: number; username: string };
  }

  /** A code the player enters in the portal to link this identity to their account. */
  async linkCode(player: Player): Promise<{ code: string; expires_at: string }> {
    return (await this.direct('/link-codes', { player })) as { code: string; expires_at: string };
  }

  private async direct(path: string, body: unknown): Promise<unknown> {
    const answer = await this.transport.call('POST', path, body, this.o.requestTimeoutMs);
    if (answer.status === 200) return answer.body;
    if (answer.status === 401 || answer.status === 403) this.revoke();
    throw HubError.of(answer);
  }

  // --- the sender -----------------------------------------------------------------------------

  private async runSender(): Promise<void> {
    const spool = this.spool as Spool;
    while (this.stateNow === 'running') {
      const backingOff = this.retryAt > this.clock();
      // order: while anything waits on disk, or the hub is failing, new events join the disk
      if (this.queue.length > 0 && (spool.size > 0 || backingOff)) await this.spoolQueue();
      if (backingOff) {
        this.resolveFlush(false);
        if (this.closing) return;
        await this.senderWake.wait(Math.min(this.retryAt - this.clock(), this.o.flushIntervalMs));
        continue;
      }
      let batch: Queued[];
      let fromSpool = false;
      if (spool.size > 0) {
        batch = ((await spool.oldest()) ?? []).map(queued);
        fromSpool = true;
      } else if (this.queue.length === 0) {
        this.flushDue = false;
        this.resolveFlush(true);
        if (this.closing) return;
        await this.senderWake.wait(LONG_MS);
        continue;
      } else if (this.queue.length < this.o.maxBatchEvents && !this.flushDue && !this.closing) {
        await this.senderWake.wait(this.o.flushIntervalMs);
        this.flushDue = true;
        continue;
      } else batch = this.takeBatch();
      if (!(await this.deliver(batch, fromSpool)) && this.closing) return;
    }
  }

  /** Sends one batch and settles it by the answer; false when it is to be retried (or stopped). */
  private async deliver(batch: Queued[], fromSpool: boolean): Promise<boolean> {
    const spool = this.spool as Spool;
    const body = `{"events":[${batch.map((q) => q.json).join(',')}]}`;
    const answer = await this.transport.call(
      'POST',
      '/events',
      body,
      this.o.requestTimeoutMs,
      this.hardStop.signal,
    );
    const action = batchAction(answer.status);
    switch (action) {
      case 'done': {
        const r = answer.body as { accepted?: number; duplicates?: number; rejected?: number };
        this.counters.sent += (r.accepted ?? 0) + (r.duplicates ?? 0);
        this.counters.duplicates += r.duplicates ?? 0;
        this.counters.rejected += r.rejected ?? 0;
        this.attempt = 0;
        if (fromSpool) await spool.settle();
        return true;
      }
      case 'drop':
        this.counters.dropped += batch.length;
        this.options.onError?.(HubError.of(answer));
        if (fromSpool) await spool.settle();
        return true;
      case 'retry':
      case 'stop':
        if (!fromSpool) await this.toSpool(batch.map((q) => q.event));
        // what waits in memory goes to disk behind it: a crash now loses nothing the hub refused
        await this.spoolQueue();
        if (action === 'stop') this.revoke();
        else {
          this.attempt++;
          this.retryAt = this.clock() + this.delay(this.attempt, answer);
        }
        this.resolveFlush(false);
        return false;
    }
  }

  private delay(attempt: number, answer: Answer): number {
    return backoffDelay(attempt, this.random(), answer.headers.get('retry-after'), this.clock());
  }

  /** The next batch off the memory queue; only its first maxBatchEvents are measured, not the whole queue. */
  private takeBatch(): Queued[] {
    const sizes = this.queue.slice(0, this.o.maxBatchEvents).map((q) => q.bytes);
    return this.queue.splice(0, nextBatchLength(sizes, this.o.maxBatchEvents, this.o.maxBatchBytes));
  }

  private async spoolQueue(): Promise<void> {
    while (this.queue.length > 0) await this.toSpool(this.takeBatch().map((q) => q.event));
  }

  private async toSpool(events: WireEvent[]): Promise<void> {
    const spool = this.spool;
    if (!spool) return;
    const before = spool.dropped;
    await spool.append(events);
    this.counters.spooled += events.length;
    this.counters.dropped += spool.dropped - before;
  }

  private resolveFlush(flushed: boolean): void {
    const waiters = this.flushWaiters;
    this.flushWaiters = [];
    for (const resolve of waiters) resolve(flushed);
  }

  /** a method, not the field: the loops read it again after each await */
  private stopped(): boolean {
    return this.stop.signal.aborted;
  }

  private revoke(): void {
    if (this.stateNow !== 'running') return;
    this.stateNow = 'revoked';
    this.stop.abort();
    this.senderWake.wake();
    this.resolveFlush(false);
    this.options.onRevoked?.();
  }

  // --- the heartbeat ----------------------------------------------------------------------------

  private async runHeartbeat(status: () => ServerStatus): Promise<void> {
    const wake = new Wake(this.stop.signal);
    let intervalS = 10;
    const plugin = this.agent.slice(0, 64);
    while (!this.stopped()) {
      let answer: Answer;
      try {
        answer = await this.transport.call(
          'POST',
          '/heartbeat',
          { ...status(), plugin },
          this.o.requestTimeoutMs,
          this.stop.signal,
        );
      } catch (err) {
        // the status callback threw: report it, try again at the next beat
        this.options.onError?.(err instanceof Error ? err : new Error(String(err)));
        await wake.wait(intervalS * 1000);
        continue;
      }
      if (this.stopped()) return;
      if (answer.status === 401 || answer.status === 403) return this.revoke();
      if (answer.status === 200) {
        const r = answer.body as { server_id?: number };
        this.counters.heartbeats++;
        this.serverId = r.server_id ?? this.serverId;
      }
      const next = nextHeartbeat(
        intervalS,
        answer.status,
        answer.body,
        answer.headers.get('retry-after'),
        this.clock(),
      );
      intervalS = next.intervalS;
      const delay = next.delayMs;
      await wake.wait(delay);
    }
  }

  // --- the command loop -------------------------------------------------------------------------

  private startCommands(): void {
    if (this.commandLoop) return;
    this.commandLoop = this.runCommands();
    this.loops.push(this.commandLoop);
  }

  private async runCommands(): Promise<void> {
    const wake = new Wake(this.stop.signal);
    let attempt = 0;
    const wait = this.o.pollWaitS;
    while (!this.stopped()) {
      const answer = await this.transport.call(
        'GET',
        `/commands?wait=${wait}`,
        undefined,
        (wait + 10) * 1000,
        this.stop.signal,
      );
      if (this.stopped()) return;
      if (answer.status === 200) {
        attempt = 0;
        const list = (answer.body as { data?: unknown }).data;
        for (const raw of Array.isArray(list) ? list : []) {
          if (this.stopped()) return;
          await this.handle(
            raw as { id: string; command: string; issued_at: string; expires_at: string },
            wake,
          );
        }
        continue;
      }
      if (answer.status === 401 || answer.status === 403) return this.revoke();
      attempt++;
      await wake.wait(this.delay(attempt, answer));
    }
  }

  private async handle(
    raw: { id: string | number; command: string; issued_at: string; expires_at: string },
    wake: Wake,
  ): Promise<void> {
    const id = String(raw.id);
    let result = this.results.get(id);
    if (!result) {
      if (Date.parse(raw.expires_at) < this.clock()) {
        this.counters.commands_expired++;
        return;
      }
      const { name, args } = parseCommand(raw.command);
      result = await runCommand(
        {
          id,
          command: raw.command,
          name,
          args,
          issuedAt: new Date(raw.issued_at),
          expiresAt: new Date(raw.expires_at),
        },
        this.handlers,
        this.clock,
      );
      this.results.set(id, result);
    }
    await this.postResult(id, result, wake);
  }

  private async postResult(id: string, result: CommandResult, wake: Wake): Promise<void> {
    for (let attempt = 1; !this.stopped(); attempt++) {
      const answer = await this.transport.call(
        'POST',
        `/commands/${encodeURIComponent(id)}/result`,
        result,
        this.o.requestTimeoutMs,
        this.stop.signal,
      );
      if (this.stopped()) return;
      switch (resultAction(answer.status)) {
        case 'recorded':
          this.counters.commands_run++;
          if (result.status === 'error') this.counters.commands_failed++;
          return;
        case 'expired':
          this.counters.commands_expired++;
          return;
        case 'forget':
          this.options.onError?.(HubError.of(answer));
          return;
        case 'stop':
          return this.revoke();
        case 'repost':
          await wake.wait(this.delay(attempt, answer));
      }
    }
  }
}
