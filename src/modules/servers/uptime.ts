import { percent1 } from '../../engines/percent.js';
import type { PollTally } from './repo.js';

/**
 * Uptime from the poll history (`server_polls`: polls and answers per server and UTC hour). A window
 * of N hours is the current hour and the N − 1 before it; history older than the longest window is
 * swept by the poller.
 */
export const HOUR_MS = 3_600_000;
export const UPTIME_HOURS = { day: 24, month: 30 * 24 } as const;
export const HISTORY_HOURS = UPTIME_HOURS.month;

/** Epoch ms of the start of the UTC hour holding `ms`. */
export const hourOf = (ms: number): number => ms - (ms % HOUR_MS);

/** The first hour of the window of `hours` hours ending with the current one. */
export const windowStart = (now: number, hours: number): number => hourOf(now) - (hours - 1) * HOUR_MS;

/** Percent of polls answered, one decimal; null when the poller has no history in the window. */
export const uptimePercent = (tally: PollTally | undefined): number | null =>
  tally && tally.total > 0 ? percent1(tally.ok, tally.total) : null;
