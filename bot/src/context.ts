import type { HubClient, HubEvent } from '@gaming-hub/client';
import type { BotLogger } from './log.js';
import { sayCommands } from './say.js';
import type { CommandChannel, Output } from './transport.js';

/** A reply or a post that could not be made; the handler that asked gets it (awaited or not, it is logged). */
export class EffectError extends Error {
  override name = 'EffectError';
}

/** What one handler run needs from the bot. */
export interface RunDeps {
  bot: string;
  commands: CommandChannel;
  hub: HubClient | undefined;
  log: BotLogger;
  /** effects already made for this event before a restart */
  done: ReadonlySet<string>;
  record(key: string): Promise<void>;
  /** the output a test kit captures instead, when one is installed */
  deliver<M>(output: Output<M>, message: M, key: string): Promise<void>;
}

/**
 * What a listener gets besides its event: effects that happen once per event whatever restarts
 * the bot goes through. Each effect of a handler run has a key (`bot:event:handler:n`); an effect
 * already recorded for this key is not made again when the event is handled again after a crash,
 * and the key goes with the effect (the hub's `Idempotency-Key`), so a repeat is dropped even in
 * the instant between an effect and its record.
 */
export class EventContext<E extends HubEvent = HubEvent> {
  private effects = 0;
  /** effects started and not yet settled: the bot waits for them before it commits the event */
  readonly pending: Promise<unknown>[] = [];

  constructor(
    readonly event: E,
    /** which handler this run is (part of the effect keys) */
    readonly handler: string,
    protected readonly deps: RunDeps,
  ) {}

  /** the hub client the bot was made with (for data: ladders, stats) */
  get hub(): HubClient {
    if (!this.deps.hub) throw new Error('this bot was made without a hub client');
    return this.deps.hub;
  }

  get log(): BotLogger {
    return this.deps.log;
  }

  /**
   * The key of the handler's next effect. Keys are taken in the order the handler asks for
   * effects (synchronously), so a handler run again after a crash gets the same keys.
   */
  private nextKey(): string {
    return `${this.deps.bot}:${this.event.id}:${this.handler}:${this.effects++}`;
  }

  /** Runs an effect under its key unless it was made before a restart; records it when it succeeds. */
  private async perform(key: string, run: (key: string) => Promise<void>): Promise<void> {
    if (this.deps.done.has(key)) return;
    await run(key);
    await this.deps.record(key);
  }

  /** Tracks an effect: the bot waits for it before committing the event, and logs its failure. */
  private track(effect: Promise<void>): Promise<void> {
    this.pending.push(
      effect.catch((error: unknown) =>
        this.deps.log.warn('an effect failed', { event_id: this.event.id, handler: this.handler, error }),
      ),
    );
    return effect;
  }

  /**
   * Makes an effect of your own once for this event and handler: `run` gets the effect's key (pass
   * it on as an idempotency key where the receiver takes one); it is skipped when the key was
   * recorded before a restart, and recorded when it succeeds.
   */
  once(run: (key: string) => Promise<void>): Promise<void> {
    return this.track(this.perform(this.nextKey(), run));
  }

  /**
   * Says `text` in a server's chat through its command channel (remote console `say`), split into
   * messages the game shows whole, never mid-word, said in order. Rejects (EffectError) when a
   * part could not be said (the parts after it are not said).
   */
  say(server: { id: number; game: string }, text: string): Promise<void> {
    const parts = sayCommands(server.game, text).map((command) => ({ command, key: this.nextKey() }));
    return this.track(
      (async () => {
        for (const { command, key } of parts)
          await this.perform(key, async () => {
            try {
              await this.deps.commands.run(server.id, command, key);
            } catch (error) {
              throw new EffectError(`could not say on server ${server.id}: ${errorText(error)}`, {
                cause: error,
              });
            }
          });
      })(),
    );
  }

  /** Sends a message to an output (Discord, an HTTP endpoint), once for this event. */
  send<M>(output: Output<M>, message: M): Promise<void> {
    return this.once(async (key) => {
      try {
        await this.deps.deliver(output, message, key);
      } catch (error) {
        throw new EffectError(`could not send to ${output.name}: ${errorText(error)}`, { cause: error });
      }
    });
  }
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));
