import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from '../../src/app.js';
import { RedisLink, type RedisLinkOptions } from '../../src/http/redis-link.js';
import type { TestDb } from './db.js';

/** The shared Redis of the test run (CI sets it); tests that need one skip without it. */
export const sharedRedisUrl = process.env.TEST_REDIS_URL;

let prefixSequence = 0;
/** A Redis key prefix no other test (or test run) uses. */
export const uniquePrefix = (what = 'test'): string =>
  `hub:${what}:${process.pid}:${Date.now().toString(36)}:${++prefixSequence}:`;

/**
 * A link to the shared Redis with a generous command timeout: on a loaded machine a healthy Redis
 * can take longer than the production default, and tests of sharing must not fail open by accident.
 */
export async function sharedLink(options: Partial<RedisLinkOptions> = {}): Promise<RedisLink> {
  if (!sharedRedisUrl) throw new Error('TEST_REDIS_URL is not set');
  const link = new RedisLink({ url: sharedRedisUrl, commandTimeoutMs: 5000, ...options });
  await link.connected();
  return link;
}

/**
 * `count` API instances on one database sharing the test Redis, configured as an operator would:
 * REDIS_URL, and the Redis prefix the database gives (its own, so tests never share counters).
 * `deps` are given to each instance as well (a token table, a clock).
 */
export function instancesOnSharedRedis(
  testDb: TestDb,
  count: number,
  deps: Partial<Omit<AppDeps, 'db' | 'config'>> = {},
): Promise<FastifyInstance[]> {
  return Promise.all(
    Array.from({ length: count }, () =>
      buildApp({
        ...deps,
        db: testDb.db,
        config: {
          LOG_LEVEL: 'silent',
          CACHE_TTL_MS: 0,
          TRUST_PROXY: false,
          REDIS_URL: sharedRedisUrl ?? '',
          REDIS_COMMAND_TIMEOUT_MS: 5000,
        },
      }),
    ),
  );
}

/**
 * redis-server's environment without libfaketime: CI runs the suite a second time with the clock a
 * year ahead (faketime), and redis-server hangs at start under it (its allocator clashes with the
 * preloaded clock). Redis keeps real time; the hub under test is what must not depend on the date.
 */
const redisEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => name !== 'LD_PRELOAD' && !name.startsWith('FAKETIME')),
);

export const redisServerInstalled =
  spawnSync('redis-server', ['--version'], { env: redisEnv, timeout: 10_000 }).status === 0;

/** A redis-server of the test's own, on a port of its own: the test may stop, freeze and kill it. */
export interface OwnRedis {
  url: string;
  port: number;
  /** SIGKILL: connections drop at once, as in a crash */
  kill(): Promise<void>;
  /** (re)starts it on the same port, empty; nothing when it runs */
  start(): Promise<void>;
  /** SIGSTOP / SIGCONT: the connection stays open but nothing answers */
  freeze(): void;
  thaw(): void;
}

const portIsFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });

/** Ports this project's fault tests may use (a shared machine gives each engineer a range). */
const PORTS = [6391, 6392, 6393, 6394, 6395];

/**
 * `ports`: where to look for a free port. Test files that run at the same time and each kill and
 * restart their Redis need ranges of their own: a port freed by one file's kill could otherwise be
 * taken by the other, and the first one's restart would fail.
 */
export async function ownRedis(ports: readonly number[] = PORTS): Promise<OwnRedis> {
  let child: ChildProcess | undefined;
  let port = 0;
  const launch = (p: number) =>
    new Promise<boolean>((resolve) => {
      const proc = spawn(
        'redis-server',
        ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: ['ignore', 'pipe', 'pipe'], env: redisEnv },
      );
      let out = '';
      proc.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Ready to accept connections')) {
          child = proc;
          resolve(true);
        }
      });
      proc.once('exit', () => resolve(false));
    });
  const start = async () => {
    if (child && child.exitCode === null) return;
    if (port && (await launch(port))) return;
    if (port) throw new Error(`redis-server did not restart on port ${port}`);
    for (const candidate of ports) {
      if ((await portIsFree(candidate)) && (await launch(candidate))) {
        port = candidate;
        return;
      }
    }
    throw new Error(`no free port for redis-server among ${ports.join(', ')}`);
  };
  await start();
  const own: OwnRedis = {
    get url() {
      return `redis://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    kill: async () => {
      const proc = child;
      child = undefined;
      if (!proc || proc.exitCode !== null) return;
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill('SIGCONT');
      proc.kill('SIGKILL');
      await exited;
    },
    start,
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
  };
  return own;
}
