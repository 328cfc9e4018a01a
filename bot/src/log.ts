/** Where a bot writes what happens to it: handler errors (with the event id), reconnects, stops. */
export interface BotLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const describe = (value: unknown): unknown =>
  value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;

/** One JSON line per record on stderr. */
export const jsonLogger = (name: string): BotLogger => {
  const write = (level: string, message: string, fields: Record<string, unknown> = {}) => {
    const entry: Record<string, unknown> = { time: new Date().toISOString(), level, bot: name, message };
    for (const [k, v] of Object.entries(fields)) entry[k] = describe(v);
    process.stderr.write(`${JSON.stringify(entry)}\n`);
  };
  return {
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
};

export const silentLogger: BotLogger = { info: () => {}, warn: () => {}, error: () => {} };
