import { createInterface } from 'node:readline';
import { tcpProxy } from './tcp-proxy.js';

/**
 * The TCP proxy of tcp-proxy.ts in a process of its own, so that a test's load (its own requests,
 * a CPU hog) does not slow the proxy down: run with the target URL, it prints the URL to use and
 * reads `delay <ms>` lines on stdin. See delayingProxy (tcp-proxy.ts).
 */
const target = process.argv[2];
if (!target) throw new Error('usage: tcp-proxy-process <url>');
const proxy = await tcpProxy(new URL(target));
createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, value] = line.trim().split(' ');
  if (command === 'delay') proxy.delay(Number(value));
  process.stdout.write(`ok ${line}\n`);
});
process.stdin.on('end', () => void proxy.close().then(() => process.exit(0)));
process.stdout.write(`proxy ${proxy.url(target)}\n`);
