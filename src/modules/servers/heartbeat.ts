/**
 * Plugin heartbeats (issue 26): how often a plugin is asked to send one, and the silence after
 * which its server is offline. The heartbeat answer tells the plugin both; the poller's loop
 * applies the second (poller/poller.ts), so a server turns offline within one poll interval
 * (POLL_INTERVAL_MS) after `offline_after_s` of silence.
 */
export const HEARTBEAT_INTERVAL_S = 10;
export const HEARTBEAT_OFFLINE_AFTER_S = 60;
export const HEARTBEAT_OFFLINE_AFTER_MS = HEARTBEAT_OFFLINE_AFTER_S * 1000;

/** A heartbeat at `heartbeatAt` still vouches for its server at `now`. */
export const heartbeatFresh = (heartbeatAt: number | null, now: number): boolean =>
  heartbeatAt !== null && heartbeatAt > now - HEARTBEAT_OFFLINE_AFTER_MS;

/** The default overlap of a token rotation: both tokens work for a day. */
export const DEFAULT_TOKEN_OVERLAP_MS = 24 * 3600 * 1000;
