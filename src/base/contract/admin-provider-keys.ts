/**
 * The wire shapes of the deployment's pools of upstream keys in the operator console's API
 * (`/api/admin/v1/provider-keys`). A key is sent once, when it is added or replaced, and never
 * answered back: every answer names a key by its provider and name.
 */
import { z } from 'zod';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const nameSchema = z
  .string({ error: 'must be a string' })
  .regex(NAME, 'must be 1-64 letters, digits, dots, dashes or underscores');

export const providerKeyParamsSchema = z.object({
  provider: z.string().min(1).max(64).describe('The provider (gemini, openai, replicate, …)'),
  name: nameSchema.describe("The key's name in its provider's pool"),
});

const settings = {
  weight: z
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(1000, 'must be at most 1000')
    .describe("The key's share of the pool's calls, relative to the other keys' weights (default 1)"),
  project: nameSchema
    .nullable()
    .describe(
      "The project whose quota the key draws on (Gemini's quotas are per project): keys of one project share one capacity pool; null: the key's own",
    ),
  max_in_flight: z
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .nullable()
    .describe('Calls at once on the key (its project) across every node; null: learned from refusals'),
};

/**
 * A key added to a pool: `provider` is one of the providers that take a key on this deployment (as
 * configured when the server started), so the document lists them.
 */
export const addProviderKeySchema = (providers: readonly string[]) =>
  z.object({
    provider: (providers.length > 0
      ? z.enum(providers as [string, ...string[]], { error: `must be one of ${providers.join(', ')}` })
      : z.string().min(1).max(64)
    ).describe('A provider that takes a key on this deployment'),
    name: nameSchema,
    key: z.string().min(1, 'must not be empty').max(4096).describe('The upstream key; never shown again'),
    weight: settings.weight.optional(),
    project: settings.project.optional(),
    max_in_flight: settings.max_in_flight.optional(),
  });

export const updateProviderKeySchema = z.object({
  key: z
    .string()
    .min(1)
    .max(4096)
    .optional()
    .describe('A new secret for the key (it is put back in service)'),
  weight: settings.weight.optional(),
  project: settings.project.optional(),
  max_in_flight: settings.max_in_flight.optional(),
  enabled: z
    .boolean()
    .optional()
    .describe('false takes the key out of service; true puts it back (also after the upstream took it out)'),
});

export const providerKeySchema = z.object({
  id: z.string(),
  provider: z.string(),
  name: z.string(),
  source: z.enum(['env', 'stored']).describe('env: ATELIER_<PROVIDER>_API_KEY of each node; stored: sealed'),
  project: z.string().nullable(),
  weight: z.number().int(),
  max_in_flight: z.number().int().nullable(),
  enabled: z.boolean(),
  status: z
    .enum(['in_service', 'disabled', 'invalid_key', 'no_quota'])
    .describe('in_service; disabled by an operator; or taken out by the upstream answer named'),
  out_since: z.number().int().nullable().describe('When the upstream took it out (epoch ms)'),
  recheck_at: z
    .number()
    .int()
    .nullable()
    .describe('When one call may try it again (the re-check; a success puts it back)'),
  last_error: z.string().nullable(),
  last_error_at: z.number().int().nullable(),
  pool: z.string().describe("Its capacity pool's key part: a hash of the key, or of its project"),
  capacity: z
    .number()
    .int()
    .nullable()
    .describe('Calls at once its pool takes: the limit set, else the one learned (null: none met yet)'),
  in_flight: z.number().int().describe("Calls on its pool now, every node (a project's keys share them)"),
  waiting: z.number().int().describe('Tasks parked waiting for a slot of its pool'),
  refusals: z.number().int().describe('Calls the upstream refused on this key (rate limits and take-outs)'),
  spend_micros: z.number().int().describe('What its completed tasks cost over the last 30 days (micro-USD)'),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});

export const providerKeysSchema = z.object({
  currency: z.literal('USD'),
  keys: z.array(providerKeySchema),
});

export type ProviderKeyWire = z.output<typeof providerKeySchema>;
export type ProviderKeysWire = z.output<typeof providerKeysSchema>;
