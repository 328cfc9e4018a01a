/**
 * A wait that ends at its time, when poked, or when the SDK stops: the loops sleep on it instead of
 * bare timers so close() never waits out a backoff. Timers are unref'd: a forgotten plugin never
 * keeps a process alive.
 */
export class Wake {
  private poke: (() => void) | undefined;
  private poked = false;

  constructor(private readonly stop: AbortSignal) {}

  /** Ends the current (or the next) wait now. */
  wake(): void {
    this.poked = true;
    this.poke?.();
  }

  /** Resolves after ms, on wake() (also one that came before), or when stopped. */
  wait(ms: number): Promise<void> {
    if (this.poked || this.stop.aborted) {
      this.poked = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.stop.removeEventListener('abort', done);
        this.poke = undefined;
        this.poked = false;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      timer.unref();
      this.poke = done;
      this.stop.addEventListener('abort', done);
    });
  }
}
