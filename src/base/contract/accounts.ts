import { z } from 'zod';
import { TIERS } from '../domain/tiers.js';

/** GET /user/status (spec §2.7). */
export const accountStatusSchema = z
  .object({
    email: z.string(),
    tier: z.enum(TIERS).describe('Plan tier; agents may use it as a cost hint'),
    has_key: z.boolean().describe('Whether the account can reach the upstream of the default model'),
  })
  .meta({
    id: 'AccountStatus',
    description: 'Account status',
    examples: [{ email: 'me@example.com', tier: 'standard', has_key: true }],
  });

export type AccountStatus = z.output<typeof accountStatusSchema>;
