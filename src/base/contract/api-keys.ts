/**
 * The wire shapes of an account's API keys (issue 31): the website's account page lists, creates
 * and revokes them (/web/api/account/keys); the operator console may show the same shape.
 */
import { z } from 'zod';
import { fieldError } from './field-error.js';
import { keyNameField } from './formats.js';

export const API_KEY_SCOPE_VALUES = ['full', 'read'] as const;

/** A key's retention settings, on every wire that lists keys (migration 0076). */
export const keyRetentionFields = {
  retention_results_days: z
    .int()
    .nullable()
    .describe(
      "Days the works made with this key are kept; null: the account's (the shortest of deployment, tier, account and key applies)",
    ),
  zero_retention: z
    .boolean()
    .describe(
      'Whether the key stores nothing: its images are removed once fetched, or an hour after they ended (docs/operations.md, Zero-retention)',
    ),
};

const RETENTION_DAYS_RULE = 'must be a whole number of days from 1 to 36500, or null';

/** PUT …/keys/{id}/retention (the website's and the admin API's): absent fields stay. */
export const keyRetentionBodySchema = z
  .looseObject({
    results_days: z
      .int({ error: RETENTION_DAYS_RULE })
      .min(1, RETENTION_DAYS_RULE)
      .max(36_500, RETENTION_DAYS_RULE)
      .nullable()
      .optional()
      .describe("Days the key's works are kept; null removes the key's own (the account's applies)"),
    zero_retention: z
      .boolean({ error: fieldError('must be true or false') })
      .optional()
      .describe('true: the key stores nothing (every work made with it is zero-retention)'),
  })
  .describe("An API key's own retention");

export const apiKeySchema = z
  .object({
    id: z.string().describe('key_…: stable, names the key (revocation, per-key figures)'),
    name: z.string(),
    scope: z
      .enum(API_KEY_SCOPE_VALUES)
      .describe('full, or read: polls, history, status and usage only (for dashboards)'),
    hint: z
      .string()
      .describe('The first characters of the key (atl_abcd…); the key itself is never shown again'),
    created_at: z.number().int().describe('Epoch ms'),
    expires_at: z.number().int().nullable().describe('When the key stops working (epoch ms); null for never'),
    expired: z.boolean().describe('Whether it has expired (it is then refused as an unknown key)'),
    last_used_at: z
      .number()
      .int()
      .nullable()
      .describe('Last authenticated use (epoch ms, to the minute); null before its first use'),
    ...keyRetentionFields,
  })
  .describe('An API key of the account (never the key itself)');

export const apiKeyListSchema = z
  .object({
    keys: z.array(apiKeySchema).describe('The working keys, oldest first (revoked ones are left out)'),
  })
  .describe("The account's API keys");

export const createApiKeyBodySchema = z
  .looseObject({
    name: keyNameField(),
    scope: z
      .enum(API_KEY_SCOPE_VALUES, { error: fieldError('must be full or read') })
      .optional()
      .describe('full (the default) or read'),
    expires_at: z
      .number({ error: fieldError('must be an integer (epoch ms) or null') })
      .int('must be an integer (epoch ms) or null')
      .nullable()
      .optional()
      .describe('When the key stops working (epoch ms, in the future); null or absent for never'),
    password: z
      .string({ error: fieldError('must be a string') })
      .max(1024, 'is too long')
      .describe("The account's password, asked again (a new key is a new way into the account)"),
  })
  .describe('A new API key');

export const createdApiKeySchema = z
  .object({
    key: apiKeySchema,
    api_key: z.string().describe('The key itself, shown this once: copy it now'),
  })
  .describe('The new key');

export const apiKeyParamsSchema = z.object({ id: z.string().describe('The key’s id (key_…)') });

export type ApiKeyInfo = z.infer<typeof apiKeySchema>;
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>;
