/** An account's plan tier: it chooses the account's limits (usage/tier-policies.ts). */
export const TIERS = ['trial', 'starter', 'standard', 'pro'] as const;
export type Tier = (typeof TIERS)[number];
