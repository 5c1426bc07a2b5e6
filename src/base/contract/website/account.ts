/**
 * The Account page's shapes (/web/api/account): its settings, own upstream keys and a rotated API
 * key. Its usage chart reads the report of GET /api/v1/user/usage (usage.ts); its password forms
 * are the session's (session.ts).
 */
import { z } from 'zod';
import { TIERS } from '../../domain/tiers.js';
import { spendConfirmationSchema } from '../accounts.js';
import { fieldError } from '../field-error.js';
import type { usageReportSchema } from '../usage.js';

export const accountInfoSchema = z
  .object({
    email: z.string(),
    tier: z.enum(TIERS),
    has_key: z.boolean().describe('Whether the account can reach the upstream of the default model'),
    api_key_hint: z.string().nullable().describe('The API key shortened, for telling keys apart'),
    base_url: z.string().describe("The service's public base URL"),
    upstream: z.object({
      default_provider: z.string(),
      key_required: z.boolean().describe("Whether the default model's provider needs a key"),
      providers: z
        .array(
          z.object({
            name: z.string(),
            configured: z.boolean().describe('Enabled on this deployment'),
            own_key: z.boolean().describe('The account stored its own key (never shown back)'),
            deployment_key: z.boolean().describe('The deployment supplies a key'),
          }),
        )
        .describe('The providers a key can be set for'),
    }),
    spend_confirmation: spendConfirmationSchema,
  })
  .describe('Account settings');

/**
 * The path of an own upstream key: `provider` is one of the providers that take a key on this
 * deployment (its providers as configured when the server started; GET /web/api/account lists
 * them in upstream.providers).
 */
export const upstreamKeyParamsSchema = (providers: readonly string[]) =>
  z.object({
    provider: (providers.length > 0
      ? z.enum(providers as [string, ...string[]], { error: `must be one of ${providers.join(', ')}` })
      : z.string()
    ).describe('A provider that takes a key (see upstream.providers of GET /web/api/account)'),
  });

export const upstreamKeyBodySchema = z
  .looseObject({
    key: z
      .string({ error: fieldError('must be a string') })
      .max(4096, 'is too long')
      .regex(/\S/, 'must not be empty (to remove a key, DELETE it)'),
  })
  .describe('An upstream key');

export const rotatedApiKeySchema = z
  .object({
    api_key: z.string().describe('The new API key, shown this once'),
    api_key_hint: z.string().nullable(),
  })
  .describe('The new API key');

export type AccountInfo = z.infer<typeof accountInfoSchema>;
export type UsageReport = z.infer<typeof usageReportSchema>;
