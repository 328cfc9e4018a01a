import { HISTORY_HOURS, HOUR_MS, hourOf } from '../modules/servers/uptime.js';
import type { ServerRow } from './world.js';

/** Polls an hour at the default 15 s interval. */
const POLLS_PER_HOUR = 240;

/**
 * A poll history for the demo servers (`server_polls`), so the preview list shows uptime: online
 * servers answered nearly every poll (an hour with a few misses now and then), offline servers
 * stopped answering some hours ago. Derived from the server id alone, so the world stays the
 * same for a seed.
 */
export function* pollHistory(servers: readonly ServerRow[], now: number): Generator<readonly number[]> {
  const current = hourOf(now);
  for (const server of servers) {
    const downFor = server.status === 'offline' ? 1 + (server.id % 24) : 0;
    for (let ago = HISTORY_HOURS - 1; ago >= 0; ago--) {
      const ok = ago < downFor ? 0 : (server.id * 7 + ago) % 53 === 0 ? POLLS_PER_HOUR - 40 : POLLS_PER_HOUR;
      yield [server.id, current - ago * HOUR_MS, ok, POLLS_PER_HOUR];
    }
  }
}
