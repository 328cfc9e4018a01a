import assert from 'node:assert/strict';
import {
  spawn,
  spawnSync,
  type ChildProcess,
  type ChildProcessWithoutNullStreams,
  type SpawnOptionsWithoutStdio,
} from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';

/**
 * The built `hub` CLI run as real processes, the way an operator does (end-to-end tests): each
 * run gets its database through DATABASE_URL and listens on a port of the system's choosing.
 */
const ROOT = join(import.meta.dirname, '..', '..');
export const CLI = join(ROOT, 'dist', 'cli.js');

function newestMtime(dir: string): number {
  return Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((e) =>
      e.isDirectory() ? newestMtime(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs,
    ),
  );
}

/** Builds dist/ when a source file is newer than the built CLI. */
export function buildIfStale(): void {
  let built = 0;
  try {
    built = statSync(CLI).mtimeMs;
  } catch {
    built = 0;
  }
  if (built >= newestMtime(join(ROOT, 'src'))) return;
  const tsc = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    { cwd: ROOT, encoding: 'utf8' },
  );
  assert.equal(tsc.status, 0, `build failed:\n${tsc.stdout}${tsc.stderr}`);
}

/** The processes the tests of this file started and that have not exited yet. */
const running = new Set<ChildProcess>();

/** SIGKILLs every process a test started that is still running. */
export function killChildren(): void {
  for (const child of running) child.kill('SIGKILL');
}

// A test that fails or times out never reaches its own clean-up, and a live child keeps the test
// file's event loop (and itself: orphans ran for 1.5 h) alive. So children are killed after the
// file's last test whatever happened, and at the latest when the test process exits.
after(killChildren);
process.once('exit', killChildren);

/**
 * Every long-running process a test starts goes through here (`hub serve`, `hub worker`, helper
 * scripts): it is killed when the test file ends, passed or not.
 */
export function spawnChild(
  command: string,
  args: string[],
  options: SpawnOptionsWithoutStdio = {},
): ChildProcessWithoutNullStreams {
  const child = spawn(command, args, options);
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/**
 * The scratch of a suite of CLI tests (call it inside `describe`): the CLI built before the first
 * test; `tempDb()` a fresh SQLite database in a temporary folder, removed after the last test.
 */
export function cliScratch(prefix: string): { tempDb: () => string } {
  const dirs: string[] = [];
  before(() => buildIfStale());
  after(() => {
    killChildren();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const tempDb = () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return `sqlite:${join(dir, 'hub.sqlite')}`;
  };
  return { tempDb };
}

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

export const envFor = (dbUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  DATABASE_URL: dbUrl,
  LOG_LEVEL: 'silent',
  PORT: '0',
  HOST: '127.0.0.1',
  // the default UDP port is shared by every test that starts a server: off unless a test asks
  INGEST_UDP_PORT: '0',
  ...extra,
});

/** Runs `hub <args>` to completion, with `input` on its stdin when given. */
export function hub(dbUrl: string, args: string[], extra: Record<string, string> = {}, input?: string): Run {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: envFor(dbUrl, extra),
    encoding: 'utf8',
    timeout: 60_000,
    input,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs `hub <args> --json`, asserts it succeeded and answers the JSON it printed last. */
export function hubJson<T>(dbUrl: string, args: string[], input?: string): T {
  const run = hub(dbUrl, [...args, '--json'], {}, input);
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout.trim().split('\n').pop() ?? '') as T;
}

/** A game server `hub servers add` registered: its id and ingest token. */
export interface RegisteredServer {
  id: number;
  token: string;
}

/** Registers a game server on 127.0.0.1:`port` with `hub servers add`. */
export function addServer(dbUrl: string, game: string, port: number): RegisteredServer {
  return hubJson<RegisteredServer>(dbUrl, [
    'servers',
    'add',
    ...['--name', `${game} box`, '--game', game, '--ip', '127.0.0.1', '--port', String(port)],
  ]);
}

/** A long-running `hub` process (serve, worker). */
export interface Started {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

export interface Served extends Started {
  url: string;
}

/**
 * Starts `hub <args>` and resolves once its output matches `banner` (with that match): what every
 * long-running `hub` process prints once it is up. Rejects with the output when the process exits
 * first or has not printed it within 60 s (then it is killed).
 */
function startHub(
  dbUrl: string,
  args: string[],
  extra: Record<string, string>,
  banner: RegExp,
): Promise<Started & { banner: RegExpExecArray }> {
  const child = spawnChild(process.execPath, [CLI, ...args], { env: envFor(dbUrl, extra) });
  const name = `hub ${args[0] ?? ''}`;
  let out = '';
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start:\n${out}`));
    }, 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = banner.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, output: () => out, exit, banner: match });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${out}`));
    });
  });
}

/** Starts `hub serve …` and resolves once it prints the address it listens on. */
export async function serve(
  dbUrl: string,
  args: string[] = [],
  extra: Record<string, string> = {},
): Promise<Served> {
  // a full line: the URL is whole
  const { banner, ...started } = await startHub(
    dbUrl,
    ['serve', ...args],
    extra,
    /listening on (http:\/\/[^\s]+)\n/,
  );
  // the rest of the banner is printed synchronously after the listening line
  await new Promise((resolve) => setTimeout(resolve, 100));
  return { ...started, url: banner[1] ?? '' };
}

/** Starts `hub worker` and resolves once it prints its banner (the UDP receiver is bound by then). */
export const startWorker = (dbUrl: string, extra: Record<string, string> = {}): Promise<Started> =>
  startHub(dbUrl, ['worker'], extra, /^hub worker: .*\n/m);

/** SIGTERM, then the exit code. */
export async function stop(served: Started): Promise<number | null> {
  served.child.kill('SIGTERM');
  return served.exit;
}
