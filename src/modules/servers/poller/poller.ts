import type { PollRecorder } from '../../../http/metrics.js';
import type { ServersRepo } from '../repo.js';
import { HEARTBEAT_OFFLINE_AFTER_MS, heartbeatFresh } from '../heartbeat.js';
import { HISTORY_HOURS, hourOf, windowStart } from '../uptime.js';
import { queryA2S } from './a2s.js';
import { querySLP } from './slp.js';

/**
 * Live server status. Every `intervalMs` each registered server is queried — A2S_INFO for cs2,
 * cs16 and rust, Server List Ping for minecraft — on its query port (or game port). An answer sets
 * players, max players, map and `online`; `offlineAfter` failures in a row set `offline`, so one
 * lost UDP packet does not flap a server off the list. Each poll is also counted in the server's
 * hourly poll history (uptime), swept of hours older than the longest uptime window once an hour.
 * A server whose plugin sent a heartbeat within the last 60 s is not queried (it may be behind NAT)
 * and counts as answered; one whose heartbeats stopped turns offline here after that silence.
 */
export interface PollerOptions {
  intervalMs: number;
  timeoutMs: number;
  offlineAfter: number;
  onError?: (err: unknown) => void;
  now?: () => number;
  metrics?: PollRecorder;
}

export interface Poller {
  pollOnce(): Promise<{ online: number; failed: number }>;
  stop(): Promise<void>;
}

export function startPoller(servers: ServersRepo, options: PollerOptions, autoStart = true): Poller {
  const now = options.now ?? Date.now;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  let sweptHour: number | undefined;

  async function pollOnce(): Promise<{ online: number; failed: number }> {
    const hour = hourOf(now());
    if (sweptHour !== hour) {
      await servers.sweepPolls(windowStart(hour, HISTORY_HOURS));
      sweptHour = hour;
    }
    // plugin-fed servers silent too long go offline here, the one loop every deployment runs
    await servers.expireSilent(now() - HEARTBEAT_OFFLINE_AFTER_MS, now());
    const list = await servers.listForPoll();
    let online = 0;
    let failed = 0;
    await Promise.all(
      list.map(async (s) => {
        if (heartbeatFresh(s.heartbeat_at, now())) {
          // its plugin vouches for it: no query (it may have no reachable port), an answered poll
          await servers.recordPoll(s.id, hourOf(now()), true);
          online++;
          return;
        }
        const port = s.query_port ?? s.port;
        // Only the query decides online or failed; a database error is not the server's failure.
        let status: { players: number; max_players: number; map: string };
        const started = performance.now();
        try {
          if (s.game === 'minecraft') {
            const slp = await querySLP(s.ip, port, options.timeoutMs);
            status = { players: slp.players, max_players: slp.maxPlayers, map: '' };
          } else {
            const info = await queryA2S(s.ip, port, options.timeoutMs);
            status = { players: info.players, max_players: info.maxPlayers, map: info.map };
          }
        } catch {
          failed++;
          await servers.markFailure(s.id, options.offlineAfter, now());
          return;
        }
        const latencyMs = Math.round(performance.now() - started);
        await servers.markOnline(s.id, status, now(), latencyMs);
        online++;
      }),
    );
    options.metrics?.round(online, failed);
    return { online, failed };
  }

  const loop = () => {
    if (stopped) return;
    running = pollOnce()
      .catch((err: unknown) => {
        options.metrics?.roundFailed();
        options.onError?.(err);
      })
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, options.intervalMs);
      });
  };
  if (autoStart) loop();

  return {
    pollOnce,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
