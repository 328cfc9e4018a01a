import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface TcpProxy {
  url(of: string): string;
  /** Delays every reply (upstream to client) by `ms` from now on, in order: a slow dependency. */
  delay(ms: number): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy on a random loopback port in front of `target`, which a test can shut to make a
 * dependency (PostgreSQL, Redis) vanish mid-run: new connections are refused, open ones are cut.
 * It can also slow the dependency's replies down (`delay`) without losing or reordering any.
 */
export async function tcpProxy(target: URL): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let delayMs = 0;
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    // Each chunk leaves `delayMs` after it came, and never before the one ahead of it: one queue
    // and one timer per connection. (A timer per chunk reorders them: timers of different
    // durations that fall due in the same millisecond fire in either order, and a Redis client
    // given its replies out of order pairs them with the wrong commands.)
    const queue: { due: number; chunk: Buffer }[] = [];
    let timer: NodeJS.Timeout | undefined;
    let ended = false;
    const drain = () => {
      timer = undefined;
      for (let head = queue[0]; head && head.due <= Date.now(); head = queue[0]) {
        queue.shift();
        if (!client.destroyed) client.write(head.chunk);
      }
      if (queue[0]) timer = setTimeout(drain, queue[0].due - Date.now());
      else if (ended) client.end();
    };
    upstream.on('data', (chunk: Buffer) => {
      if (queue.length === 0 && delayMs === 0) {
        client.write(chunk);
        return;
      }
      queue.push({ due: Date.now() + delayMs, chunk });
      timer ??= setTimeout(drain, Math.max(0, (queue[0]?.due ?? 0) - Date.now()));
    });
    upstream.on('end', () => {
      ended = true;
      if (queue.length === 0) client.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    url(of: string) {
      const url = new URL(of);
      url.hostname = '127.0.0.1';
      url.port = String(address.port);
      return url.toString();
    },
    delay(ms: number) {
      delayMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * tcpProxy in a child process (spawned with `spawn`, e.g. spawnChild of helpers/cli.ts, so it is
 * killed with the test file): the test process may be as busy as it likes without slowing it.
 */
export async function delayingProxy(
  target: string,
  spawn: (command: string, args: string[]) => ChildProcessWithoutNullStreams,
): Promise<{ url: string; delay(ms: number): Promise<void>; close(): void }> {
  const child = spawn(process.execPath, [
    '--import',
    'tsx',
    join(import.meta.dirname, 'tcp-proxy-process.ts'),
    target,
  ]);
  const lines = createInterface({ input: child.stdout });
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const next = () => new Promise<string>((resolve) => waiting.push(resolve));
  const first = await next();
  const url = /^proxy (\S+)$/.exec(first)?.[1];
  if (!url) throw new Error(`the proxy did not start: ${first}`);
  return {
    url,
    async delay(ms: number) {
      const answered = next();
      child.stdin.write(`delay ${ms}\n`);
      await answered;
    },
    close: () => {
      child.stdin.end();
    },
  };
}
