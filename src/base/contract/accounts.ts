import { z } from 'zod';
import { TIERS } from '../domain/tiers.js';

/** Spend confirmation when nothing was set (docs/mcp.md "Spend confirmation"). */
export const SPEND_CONFIRMATION_DEFAULTS = { above_micros: 500_000, api_keys: false, sign_in: true } as const;

/** The most a threshold may be: $10,000 (any larger is "never ask", which switching off says). */
export const MAX_SPEND_CONFIRMATION_MICROS = 10_000_000_000;

/** An account's spend confirmation: one threshold, one switch per kind of credential. */
export const spendConfirmationSchema = z
  .object({
    above_micros: z
      .number()
      .int()
      .min(0)
      .max(MAX_SPEND_CONFIRMATION_MICROS)
      .describe(
        'MCP tools that spend ask the person first when a call can cost more than this, in micro-dollars (1,000,000 = 1 USD); 0 asks before any paid call',
      ),
    api_keys: z
      .boolean()
      .describe('Whether calls made with an API key ask (the stdio server, /mcp with a key); default false'),
    sign_in: z
      .boolean()
      .describe('Whether calls of a host signed in to /mcp (an OAuth grant) ask; default true'),
  })
  .meta({
    id: 'SpendConfirmation',
    description:
      'When MCP tools ask the person before spending (MCP elicitation); set on the website account page',
    examples: [SPEND_CONFIRMATION_DEFAULTS],
  });

export type SpendConfirmation = z.output<typeof spendConfirmationSchema>;

/** GET /user/status (spec §2.7). */
export const accountStatusSchema = z
  .object({
    email: z.string(),
    tier: z.enum(TIERS).describe('Plan tier; agents may use it as a cost hint'),
    has_key: z.boolean().describe('Whether the account can reach the upstream of the default model'),
    spend_confirmation: spendConfirmationSchema
      .optional()
      .describe(
        'When MCP tools ask the person before spending (read-only here: only the person changes it, on the website account page)',
      ),
  })
  .meta({
    id: 'AccountStatus',
    description: 'Account status',
    examples: [
      {
        email: 'me@example.com',
        tier: 'standard',
        has_key: true,
        spend_confirmation: SPEND_CONFIRMATION_DEFAULTS,
      },
    ],
  });

export type AccountStatus = z.output<typeof accountStatusSchema>;
