/** Hourly request quotas per tier (SPEC: Limits). */
export const TIERS = {
  free: 100,
  authenticated: 1000,
  premium: 10000,
  partner: 50000,
} as const;

export type Tier = keyof typeof TIERS;
export const TIER_NAMES = Object.keys(TIERS) as Tier[];

export const TIER_DESCRIPTIONS: Record<Tier, string> = {
  free: 'default tier for all API keys',
  authenticated: 'users with an active subscription',
  premium: 'subscribers of the top subscription tier',
  partner: 'approved partner applications',
};

export type Subscription = 'none' | 'active' | 'premium';

/** The tier a key gets from its owner when no operator has pinned one (DESIGN: Tier of a key). */
export function tierForOwner(owner: { subscription: Subscription; is_partner: number } | null): Tier {
  if (!owner) return 'free';
  if (owner.is_partner) return 'partner';
  switch (owner.subscription) {
    case 'premium':
      return 'premium';
    case 'active':
      return 'authenticated';
    case 'none':
      return 'free';
  }
}

/** Requests per hour a key may make: the operator's override, or its tier's quota. */
export const limitFor = (tier: Tier, quota: number | null): number => quota ?? TIERS[tier];

/**
 * Whether a key spends its account's hourly quota (shared by all such keys of the account) rather
 * than one of its own: so it does when it follows its owner's plan. Holding several keys, or
 * revoking a spent key and making another, then buys no extra requests. A key the operator gave a
 * tier or quota of its own, and a key without an owner, count on their own.
 */
export const sharesAccountQuota = <
  K extends { user_id: number | null; tier: Tier | null; quota: number | null },
>(
  key: K,
): key is K & { user_id: number } => key.user_id !== null && key.tier === null && key.quota === null;
