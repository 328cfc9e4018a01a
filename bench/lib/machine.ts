import { spawn, type ChildProcess } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { Redis } from 'ioredis';

/** The machine's load average and CPU count, printed beside every figure measured on it. */
export const machineLoad = (): string =>
  `load average ${loadavg()
    .map((n) => n.toFixed(1))
    .join(' / ')} (1 / 5 / 15 min), ${cpus().length} CPUs`;

/** A redis-server of the benchmark's own on `port` (no persistence), stopped by `stop()`. */
export async function ownRedisServer(port: number): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const url = `redis://127.0.0.1:${port}`;
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  // refused until the server listens: the attempt below is retried, the event is not an error
  client.on('error', () => undefined);
  for (let attempt = 0; ; attempt++) {
    try {
      await client.connect();
      await client.ping();
      break;
    } catch (error) {
      if (child.exitCode !== null || attempt > 50)
        throw new Error(`redis-server on ${port}: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  client.disconnect();
  return { url, stop: () => stopChild(child) };
}

/** A process that keeps one CPU busy (the "CPU-hogging process beside them"). */
export function cpuHog(): { stop(): Promise<void> } {
  const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  return { stop: () => stopChild(child) };
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
