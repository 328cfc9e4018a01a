/**
 * Remembers a value for the rest of the current event-loop turn, or until `forget()`.
 *
 * Requests that reach the server together are handled in the same turn (the poll phase runs the
 * callbacks of every socket that was ready), and the memo is dropped in the turn's check phase, so
 * a value read once serves that whole batch. A request sent after some change completed cannot be
 * in a batch that began before it: its socket was not ready when the batch was collected.
 */
export class TurnMemo<T> {
  private value: T | undefined;
  private held = false;
  private readonly release = (): void => {
    this.held = false;
    this.value = undefined;
  };

  constructor(private readonly read: () => T) {}

  get(): T {
    if (!this.held) {
      this.value = this.read();
      this.held = true;
      setImmediate(this.release);
    }
    return this.value as T;
  }

  /** The next `get()` reads again (a change this process made is seen at once). */
  forget(): void {
    this.held = false;
  }
}
