import { fork, spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A server the benchmark started in a process of its own. */
export interface ServerProcess {
  url: string;
  /** its process id (for reading its CPU time) */
  pid: number;
  stop(): Promise<void>;
}

/** A bench script's process (startScript): it also answers messages. */
export interface ScriptProcess extends ServerProcess {
  /** sends `message` and resolves with the script's answer */
  ask(message: string): Promise<unknown>;
}

const stopper = (child: ChildProcess) => () =>
  new Promise<void>((resolve) => {
    // gone already (a process ended by a signal has a signalCode and no exitCode)
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

/**
 * `hub serve` from the build, as an operator runs it, on the benchmark's database: the service gets
 * a process, an event loop and a heap of its own, and shares none of them with the load generator.
 * The poller and UDP receiver stay off (they would poll the seeded servers' made-up addresses).
 */
export async function startService(databaseUrl: string, env: Record<string, string>): Promise<ServerProcess> {
  const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
  const child = spawn(process.execPath, [cli, 'serve'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'warn',
      WORKER_IN_SERVE: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) {
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve(match[1]);
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`hub serve exited (${String(code)}) before listening:\n${out}`)),
    );
  });
  return { url, pid: child.pid ?? 0, stop: stopper(child) };
}

/**
 * A bench server script (bench/*.ts) in a process of its own, which sends its URL once listening.
 * `quiet` sends its standard output to /dev/null (a service logging every request).
 */
export async function startScript(
  script: string,
  args: string[] = [],
  options: { env?: Record<string, string>; quiet?: boolean } = {},
): Promise<ScriptProcess> {
  const out = options.quiet ? openSync('/dev/null', 'w') : 'inherit';
  const child = fork(fileURLToPath(new URL(script, import.meta.url)), args, {
    stdio: ['ignore', out, 'inherit', 'ipc'],
    env: { ...process.env, ...options.env },
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (message) => resolve(message as string));
    child.once('exit', (code) => reject(new Error(`${script} exited (${String(code)})`)));
  });
  const ask = (message: string) =>
    new Promise<unknown>((resolve) => {
      child.once('message', resolve);
      child.send(message);
    });
  return { url, pid: child.pid ?? 0, stop: stopper(child), ask };
}

/** The raw node:http baseline, in a process of its own like the service (`bodies`: see raw-server.ts). */
export const startRawProcess = (bodies?: string): Promise<ServerProcess> =>
  startScript('./raw-server.ts', bodies ? [bodies] : []);
