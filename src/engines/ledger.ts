/**
 * Rules of the hub economy (documented in the API reference): one currency, whole coins, the
 * amounts the ingest pipeline mints, and the bounds of a transfer. Pure: no I/O.
 */
export const CURRENCY = 'coins';

/** The most one transfer may move. Larger sums are refused, not split. */
export const MAX_TRANSFER = 1_000_000;
/** The most one operator grant may mint. */
export const MAX_GRANT = 100_000_000;
export const MAX_NOTE_LENGTH = 200;

/** Coins minted by the ingest pipeline, in the transaction that records the event. */
export const REWARDS = {
  /** each match a player's team won */
  match_win: 10,
  /** each achievement a player unlocked */
  achievement: 25,
} as const;

export type RewardReason = keyof typeof REWARDS;

export interface Reward {
  userId: number;
  reason: RewardReason;
  amount: number;
}

/** What a player earns for what one ingest batch recorded; nothing for nothing. */
export function rewardsFor(userId: number, done: { matchesWon: number; achievements: number }): Reward[] {
  const out: Reward[] = [];
  if (done.matchesWon > 0)
    out.push({ userId, reason: 'match_win', amount: done.matchesWon * REWARDS.match_win });
  if (done.achievements > 0)
    out.push({ userId, reason: 'achievement', amount: done.achievements * REWARDS.achievement });
  return out;
}

/** Why an amount cannot be moved, or null when it can. Amounts are whole, positive and bounded. */
export function amountFault(amount: number, max: number): string | null {
  if (!Number.isInteger(amount)) return 'must be a whole number of coins';
  if (amount <= 0) return 'must be at least 1';
  if (amount > max) return `must be at most ${max.toLocaleString('en-US')}`;
  return null;
}

/** A movement's legs: signed amounts that must sum to zero, with two legs at least. */
export function isBalanced(legs: readonly number[]): boolean {
  return (
    legs.length >= 2 &&
    legs.every((n) => Number.isInteger(n) && n !== 0) &&
    legs.reduce((s, n) => s + n, 0) === 0
  );
}
