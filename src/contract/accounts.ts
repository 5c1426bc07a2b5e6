import { z } from 'zod';

export const ACCOUNT_TIERS = ['trial', 'starter', 'standard', 'pro'] as const;
export type AccountTier = (typeof ACCOUNT_TIERS)[number];

/** GET /user/status (spec §2.7). */
export const accountStatusSchema = z
  .object({
    email: z.string(),
    tier: z.enum(ACCOUNT_TIERS).describe('Plan tier; agents may use it as a cost hint'),
    has_key: z.boolean().describe('Whether the account can reach the upstream of the default model'),
  })
  .meta({
    id: 'AccountStatus',
    description: 'Account status',
    examples: [{ email: 'me@example.com', tier: 'standard', has_key: true }],
  });

export type AccountStatus = z.output<typeof accountStatusSchema>;
