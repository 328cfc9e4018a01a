import { connect, type Db } from './db/connect.js';
import { migrateToLatest } from './db/migrate.js';
import { DatabaseTimeoutError, pingDatabase } from './db/ping.js';

/**
 * A start-up failure the operator can fix (a busy port, a missing database, a bad setting): the CLI
 * prints its message as one line and exits with code 1, without a stack trace.
 */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** How long start-up waits for the database's first answer (a host that drops packets never refuses). */
const FIRST_ANSWER_MS = 10_000;

const codeOf = (err: unknown): string | undefined => {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, errors } = err as { code?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  // a connection tried over several addresses fails with an AggregateError of each attempt's error
  return Array.isArray(errors) ? codeOf(errors[0]) : undefined;
};

const NETWORK_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
};

/** Where a PostgreSQL URL points, without its password. */
function describePostgres(url: string): {
  where: string;
  database: string;
  user: string;
  host: string;
  port: string;
} {
  const parsed = new URL(url);
  const host = parsed.hostname || 'localhost';
  const port = parsed.port || '5432';
  const database =
    decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username) || 'postgres';
  return {
    where: `${host}:${port}`,
    database,
    user: decodeURIComponent(parsed.username) || 'postgres',
    host,
    port,
  };
}

/** The one line an operator needs for a database that cannot be used, or undefined for a bug. */
export function explainDatabaseError(err: unknown, url: string): string | undefined {
  const code = codeOf(err);
  const message = err instanceof Error ? err.message : String(err);
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    if (
      code?.startsWith('SQLITE_') ||
      ['EACCES', 'EROFS', 'ENOTDIR', 'ENOENT', 'EISDIR', 'EPERM', 'EEXIST'].includes(code ?? '')
    )
      return `cannot open the SQLite database ${file} (DATABASE_URL): ${message}`;
    return undefined;
  }
  const pg = describePostgres(url);
  if (err instanceof DatabaseTimeoutError)
    return `PostgreSQL at ${pg.where} did not answer within ${err.ms / 1000} s (DATABASE_URL): check the host, the port and any firewall`;
  if (code === '3D000')
    return `PostgreSQL database "${pg.database}" does not exist on ${pg.where}: create it (createdb -h ${pg.host} -p ${pg.port} -U ${pg.user} ${pg.database}) and start again`;
  if (code === '28P01' || code === '28000')
    return `PostgreSQL at ${pg.where} refused user "${pg.user}": ${message} (check DATABASE_URL's user and password)`;
  if (code === '42501')
    return `PostgreSQL user "${pg.user}" may not use database "${pg.database}": ${message}`;
  const network = code ? NETWORK_WORDS[code] : undefined;
  if (network)
    return `cannot reach PostgreSQL at ${pg.where} (${network}): is it running, and are DATABASE_URL's host and port right?`;
  return undefined;
}

/**
 * Connects to DATABASE_URL, waits for a first answer and applies pending migrations. A database
 * that is missing, unreachable or refuses the user is a StartupError naming it (never its password).
 */
export async function openDatabase(url: string, options: { migrate?: boolean } = {}): Promise<Db> {
  let db: Db;
  try {
    db = connect(url);
  } catch (err) {
    const line = explainDatabaseError(err, url);
    throw line ? new StartupError(line) : err;
  }
  try {
    await pingDatabase(db.kysely, FIRST_ANSWER_MS);
    if (options.migrate !== false) await migrateToLatest(db);
    return db;
  } catch (err) {
    await db.close().catch(() => undefined);
    const line = explainDatabaseError(err, url);
    throw line ? new StartupError(line) : err;
  }
}

export interface BindTarget {
  /** `HTTP` or `UDP log receiver` */
  what: string;
  host: string;
  port: number;
  /** the setting that chose the port */
  setting: string;
  /** the setting that chose the address */
  hostSetting: string;
}

/** The one line for a socket that could not be bound (HTTP listener or UDP receiver), or undefined. */
export function explainBindError(
  err: unknown,
  { what, host, port, setting, hostSetting }: BindTarget,
): string | undefined {
  const code = codeOf(err);
  const at = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (code === 'EADDRINUSE')
    return `${what} port ${at} is already in use: stop the other process or choose another port (${setting})`;
  if (code === 'EACCES') return `${what} may not bind ${at}: ports below 1024 need privileges (${setting})`;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `${what} cannot bind ${at}: ${host} is not an address of this machine (${hostSetting})`;
  return undefined;
}

/**
 * Listens on `target`'s host and port. A port that cannot be bound closes `app` and is a
 * StartupError (one line, exit 1) when it can be explained; any other failure is thrown as it is.
 */
export async function listenOrExplain(
  app: { listen(options: { port: number; host: string }): Promise<unknown>; close(): Promise<unknown> },
  target: BindTarget,
): Promise<void> {
  try {
    await app.listen({ port: target.port, host: target.host });
  } catch (err) {
    await app.close().catch(() => undefined);
    const line = explainBindError(err, target);
    throw line ? new StartupError(line) : err;
  }
}
