/**
 * The command loop's pure parts (plugin-sdk/vectors/commands.json): a command line split into name
 * and args, the output cut to the hub's 64 KiB, what a result answer means, and the results
 * remembered so a command delivered again is not run again.
 */
export interface Command {
  id: string;
  /** the whole line as issued */
  command: string;
  /** its first word */
  name: string;
  /** the rest, trimmed ("" when none) */
  args: string;
  issuedAt: Date;
  expiresAt: Date;
}
/** Runs a command; its return value (a string, or nothing) is the output sent back. */
export type CommandHandler = (command: Command) => string | undefined | Promise<string | undefined>;

export interface CommandResult {
  status: 'ok' | 'error';
  output: string;
  duration_ms: number;
}

export function parseCommand(line: string): { name: string; args: string } {
  const trimmed = line.trim();
  const space = trimmed.search(/\s/);
  return space < 0
    ? { name: trimmed, args: '' }
    : { name: trimmed.slice(0, space), args: trimmed.slice(space).trim() };
}

export const MAX_OUTPUT_BYTES = 65_536;

/** At most MAX_OUTPUT_BYTES of UTF-8, never cut inside a character. */
export function truncateOutput(output: string, maxBytes = MAX_OUTPUT_BYTES): string {
  if (output.length * 3 <= maxBytes) return output;
  const bytes = Buffer.from(output, 'utf8');
  if (bytes.length <= maxBytes) return output;
  let end = maxBytes;
  // back off continuation bytes (10xxxxxx) to the start of the cut character
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/** Runs a handler; a throw is an error result with its message, a missing handler too. */
export async function runCommand(
  command: Command,
  handlers: ReadonlyMap<string, CommandHandler>,
  clock: () => number,
): Promise<CommandResult> {
  const handler = handlers.get(command.name);
  if (!handler) return { status: 'error', output: `unknown command: ${command.name}`, duration_ms: 0 };
  const started = clock();
  try {
    const output = await handler(command);
    return {
      status: 'ok',
      output: truncateOutput(output ?? ''),
      duration_ms: Math.max(0, clock() - started),
    };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { status: 'error', output: truncateOutput(message), duration_ms: Math.max(0, clock() - started) };
  }
}

/** What to do after posting a result. */
export type ResultAction = 'recorded' | 'expired' | 'forget' | 'repost' | 'stop';
export function resultAction(status: number | 'network error' | 'timeout'): ResultAction {
  if (status === 200) return 'recorded';
  if (status === 409) return 'expired';
  if (status === 401 || status === 403) return 'stop';
  if (status === 404) return 'forget';
  if (typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429)
    return 'forget';
  return 'repost';
}

/** The last `size` results by command id (a Map keeps insertion order: the oldest goes first). */
export class RecentResults {
  private readonly results = new Map<string, CommandResult>();
  constructor(private readonly size = 1000) {}
  get(id: string): CommandResult | undefined {
    return this.results.get(id);
  }
  set(id: string, result: CommandResult): void {
    this.results.set(id, result);
    if (this.results.size > this.size) {
      const oldest = this.results.keys().next();
      if (!oldest.done) this.results.delete(oldest.value);
    }
  }
}
