import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time a process has used so far, in nanoseconds: the sum over its threads of the time on a CPU
 * (/proc/<pid>/task/<tid>/schedstat, Linux). Per request, it prices a server's work whatever share of
 * a busy machine it got, which its req/s alone does not.
 */
export function cpuNs(pid: number): number {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return total;
}

/**
 * Waits until a process has settled after starting (its CPU use under 2% over half a second, at most
 * `timeoutMs`), and returns what it then uses idle, in CPU nanoseconds per wall-clock millisecond
 * (timers, the event-loop delay monitor): not a request's cost, so a measurement takes it out.
 */
export async function settled(pid: number, timeoutMs = 60_000): Promise<number> {
  const until = Date.now() + timeoutMs;
  let before = cpuNs(pid);
  let at = performance.now();
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = cpuNs(pid);
    const elapsed = performance.now() - at;
    if (now - before < 10_000_000) return (now - before) / elapsed;
    before = now;
    at += elapsed;
  }
  return 0;
}
