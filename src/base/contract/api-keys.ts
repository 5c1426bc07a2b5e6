/**
 * The wire shapes of an account's API keys (issue 31): the website's account page lists, creates
 * and revokes them (/web/api/account/keys); the operator console may show the same shape.
 */
import { z } from 'zod';
import { fieldError } from './field-error.js';
import { keyNameField } from './formats.js';

export const API_KEY_SCOPE_VALUES = ['full', 'read'] as const;

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
