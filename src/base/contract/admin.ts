/**
 * The wire shapes of the operator console's API (`/api/admin/v1`): accounts, their keys and
 * passwords, usage over time, the policies in force and the upstreams' live state. Only operators
 * may call it (anyone else is 403 `forbidden`); the website's admin pages read it with their session.
 */
import { z } from 'zod';
import { TIERS } from '../domain/tiers.js';
import { policyVersionHeadSchema } from './admin-policies.js';
import { adminEffectiveRetentionSchema } from './admin-retention.js';
import { keyRetentionFields } from './api-keys.js';
import { fieldError } from './field-error.js';
import { emailField, keyNameField } from './formats.js';
import { pageFields, pageQuery } from './paging.js';
import {
  budgetsSchema,
  operatorUsageDaySchema,
  operatorUsageModelSchema,
  operatorUsageReportSchema,
  usageQuerySchema,
} from './usage.js';
import { WEBSITE_SESSION_SCHEME } from './website/shared.js';

export { operatorUsageReportSchema, usageQuerySchema };

export const ADMIN_PREFIX = '/api/admin/v1';
export const ADMIN_TAG = 'admin';
export const MAX_ADMIN_PAGE_LIMIT = 100;
/** Every admin route takes an operator's API key, or an operator's website session. */
export const adminSecurity: Array<Record<string, string[]>> = [
  { bearer: [] },
  { [WEBSITE_SESSION_SCHEME]: [] },
];

/**
 * Images completed and failed, what the completed ones cost, and what the operator absorbed beyond
 * quotes' maxima: the operator's usage counts.
 */
const countsSchema = operatorUsageModelSchema.omit({ model: true });
const counts = countsSchema.shape;

/** true or false in a query string; absent or empty does not filter. */
const flagQuery = (what: string) =>
  z
    .enum(['true', 'false', ''], { error: 'must be true or false' })
    .optional()
    .transform((raw) => (raw === 'true' ? true : raw === 'false' ? false : undefined))
    .describe(what);

export const adminAccountsQuerySchema = z.object({
  ...pageQuery(MAX_ADMIN_PAGE_LIMIT, 50),
  q: z
    .string({ error: 'must be a string' })
    .max(254, 'must be at most 254 characters')
    .optional()
    .transform((raw) => raw?.trim().toLowerCase() || undefined)
    .describe('Only accounts whose e-mail contains this text (case-insensitive)'),
  tier: z
    .enum([...TIERS, ''], { error: `must be one of ${TIERS.join(', ')}` })
    .optional()
    .transform((tier) => tier || undefined)
    .describe('Only accounts of this tier'),
  disabled: flagQuery('Only disabled (true) or only enabled (false) accounts'),
  operator: flagQuery('Only operators (true) or only other accounts (false)'),
});

/** An account's spend budgets as set (micro-dollars, USD; null: no budget for that period). */
const budgetLimitsSchema = z.object({
  daily_micros: z.number().int().nullable(),
  monthly_micros: z.number().int().nullable(),
});

export const adminAccountSchema = z
  .object({
    id: z.string().describe('Account id (acc_…)'),
    email: z.string(),
    tier: z.enum(TIERS),
    disabled: z.boolean().describe('A disabled account: its keys and sessions are refused'),
    operator: z.boolean().describe('An operator may use this API and the admin pages (set by the CLI)'),
    password_change_required: z
      .boolean()
      .describe(
        'The password is one an operator set (a reset): the next website session can do nothing but set a new one',
      ),
    created_at: z.number().int().describe('Milliseconds since the Unix epoch'),
    today: countsSchema.describe('Images that ended today (UTC day), and their cost'),
    month: countsSchema.describe('Images that ended this UTC calendar month, and their cost'),
    budget: budgetLimitsSchema.nullable().describe('The spend budgets set for the account; null: none'),
    retention: adminEffectiveRetentionSchema
      .optional()
      .describe(
        'The retention in force and where it comes from: on the answers about one account (GET, PATCH, POST), not in the list',
      ),
  })
  .meta({ id: 'AdminAccount', description: 'An account as the operator console lists it' });

export const adminAccountsPageSchema = z
  .object({ items: z.array(adminAccountSchema).describe('Oldest first'), ...pageFields })
  .describe('A page of accounts');

export const adminAccountParamsSchema = z.object({ id: z.string().describe('Account id (acc_…)') });

const passwordField = z
  .string({ error: fieldError('must be a string') })
  .min(8, 'must be at least 8 characters')
  .max(1024, 'is too long');

export const adminCreateAccountBodySchema = z
  .looseObject({
    email: emailField().describe('The login name: an email address, at most 254 characters'),
    tier: z
      .enum(TIERS, { error: `must be one of ${TIERS.join(', ')}` })
      .optional()
      .describe('Default trial'),
    password: passwordField.optional().describe('A password for the website; without one, API access only'),
  })
  .describe('A new account');

export const adminCreatedAccountSchema = z
  .object({
    account: adminAccountSchema,
    api_key: z.string().describe('The account’s first API key, shown this once'),
  })
  .describe('The account created, with its first API key');

export const adminAccountChangeSchema = z
  .looseObject({
    tier: z.enum(TIERS, { error: `must be one of ${TIERS.join(', ')}` }).optional(),
    disabled: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe(
        'true: its keys and sessions stop working at once, on every node; false: its keys work again',
      ),
  })
  .describe('A change of tier, or disabling and enabling');

export const adminPasswordBodySchema = z
  .looseObject({
    password: passwordField
      .optional()
      .describe('The new password; absent: a new one is generated and answered once'),
  })
  .describe('A password reset');

export const adminPasswordResetSchema = z
  .object({
    password: z
      .string()
      .nullable()
      .describe('The generated password, shown this once; null when the request set the password'),
  })
  .describe(
    'The password was reset; every session of the account has ended, and the next one must set a new password first',
  );

export const adminApiKeySchema = z
  .object({
    id: z.string().describe('Key id (key_…), stable'),
    name: z.string(),
    scope: z.enum(['full', 'read']).describe('full, or read: polls, history, status and usage only'),
    hint: z.string().describe('The first characters of the key (never the key)'),
    created_at: z.number().int(),
    expires_at: z.number().int().nullable().describe('When it stops working (epoch ms); null: never'),
    last_used_at: z.number().int().nullable().describe('Last use, written at most once a minute'),
    revoked_at: z.number().int().nullable(),
    ...keyRetentionFields,
    budget: budgetLimitsSchema
      .nullable()
      .describe(
        "The key's own spend budgets (its requests are held to these and to its account's); null: none",
      ),
  })
  .meta({ id: 'AdminApiKey', description: "An account's API key, as the operator sees it" });

export const adminKeysQuerySchema = z.object({
  revoked: flagQuery('Also list revoked keys (true); default only working ones'),
});

export const adminApiKeysSchema = z
  .object({ keys: z.array(adminApiKeySchema).describe('Oldest first') })
  .describe("The account's API keys");

export const adminKeyParamsSchema = z.object({
  id: z.string().describe('Account id (acc_…)'),
  key_id: z.string().describe('Key id (key_…)'),
});

export const adminCreateKeyBodySchema = z
  .looseObject({
    name: keyNameField(),
    scope: z.enum(['full', 'read'], { error: 'must be full or read' }).optional().describe('Default full'),
    expires_at: z
      .number({ error: 'must be a time in milliseconds since the epoch' })
      .int('must be a time in milliseconds since the epoch')
      .nullable()
      .optional()
      .describe('When the key stops working (epoch ms, in the future); absent or null: never'),
  })
  .describe('A new API key');

export const adminCreatedKeySchema = z
  .object({
    key: adminApiKeySchema,
    api_key: z.string().describe('The key itself, shown this once'),
  })
  .describe('The key created');

export const adminUsageAccountSchema = z.object({
  id: z.string(),
  email: z.string().nullable().describe('null when the account no longer exists'),
  ...counts,
  models: z.array(operatorUsageModelSchema).describe('Per model, by model id'),
});

const budgetMicros = (period: string) =>
  z
    .number({ error: 'must be an integer number of micro-dollars, or null' })
    .int('must be an integer number of micro-dollars, or null')
    .min(0, 'must not be negative')
    .nullable()
    .optional()
    .describe(
      `The ${period} budget in micro-dollars (USD; 1,000,000 = $1); null removes it; absent leaves it`,
    );

export const adminBudgetBodySchema = z
  .looseObject({
    daily_micros: budgetMicros('daily (UTC day)'),
    monthly_micros: budgetMicros('monthly (UTC month)'),
  })
  .describe('Spend budgets of an account');

export const adminKeyBudgetSchema = z
  .object({
    key_id: z.string(),
    ...budgetLimitsSchema.shape,
  })
  .describe("The key's budgets as set");

export const adminBudgetSchema = z
  .object({
    ...budgetLimitsSchema.shape,
    status: budgetsSchema.nullable().describe('Where the budgets stand now; null when none is set'),
  })
  .describe("The account's budgets as set, and where they stand");

export const adminUsageSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    totals: countsSchema,
    days: z
      .array(operatorUsageDaySchema)
      .describe('Every day of the range, in order, days without images included'),
    models: z.array(operatorUsageModelSchema).describe('Totals per model'),
    currency: z.literal('USD').describe('The currency of every *_micros figure'),
    accounts: z
      .array(adminUsageAccountSchema)
      .describe('Accounts with images in the range, most images first'),
  })
  .meta({ id: 'AdminUsage', description: 'Usage of every account over a range of UTC days' });

const policyLimit = z.number().int().nullable();

export const adminPoliciesSchema = z
  .object({
    tiers: z
      .array(
        z.object({
          tier: z.enum(TIERS),
          policy: z.boolean().describe('Whether a policy applies to the tier (false: unrestricted)'),
          models: z.array(z.string()).nullable().describe('Model ids the tier may use; null: every model'),
          images_per_day: policyLimit,
          images_per_month: policyLimit,
          tasks_in_flight: policyLimit,
          accounts: z.number().int().describe('Accounts on this tier'),
        }),
      )
      .describe('Every tier, in the order of the tier list'),
    in_force: policyVersionHeadSchema.describe(
      'The version of the tier policies in force (seeded from ATELIER_POLICY_FILE, edited with PUT or PATCH)',
    ),
    budgets: z
      .array(z.object({ id: z.string(), email: z.string(), ...budgetLimitsSchema.shape }))
      .describe('Every account with a spend budget set (micro-dollars, USD), by e-mail'),
    key_budgets: z
      .array(
        z.object({
          account_id: z.string(),
          email: z.string(),
          key_id: z.string(),
          ...budgetLimitsSchema.shape,
        }),
      )
      .describe('Every API key with a spend budget of its own, by e-mail then key id'),
    currency: z.literal('USD'),
  })
  .meta({
    id: 'AdminPolicies',
    description:
      'The tier policies (in the store; seeded from ATELIER_POLICY_FILE) and spend budgets in force',
  });

export const adminUpstreamsSchema = z
  .object({
    now: z.number().int().describe("The server's time (epoch ms)"),
    providers: z
      .array(
        z.object({
          name: z.string(),
          circuit: z
            .object({
              state: z.enum(['closed', 'open', 'half_open']),
              consecutive_failures: z.number().int(),
              probe_in_ms: z.number().int().describe('Until a probe is let through while open; 0 otherwise'),
            })
            .nullable()
            .describe("This node's circuit breaker; null for a provider without one (the local renderer)"),
          requires_key: z.boolean().describe('false for a provider that needs no key (the local renderer)'),
          deployment_key: z
            .boolean()
            .describe(
              "Whether the deployment supplies a key: a key of the provider's pool in service (the environment's or one added)",
            ),
          account_keys: z.number().int().describe('How many accounts hold their own key for it'),
          queued: z.number().int().describe("Its tasks waiting to start, every account's, on every node"),
          in_progress: z.number().int().describe('Its tasks being made now, on every node'),
        }),
      )
      .describe('Each provider, with the circuit breaker of the node that answered'),
    pools: z
      .array(
        z.object({
          provider: z.string(),
          upstream_model: z.string(),
          key: z
            .string()
            .describe(
              "The first 16 hex digits of the upstream key's SHA-256 (never the key); none for a provider without a key",
            ),
          learned_limit: z
            .number()
            .int()
            .nullable()
            .describe(
              'Calls in flight the upstream takes, as learned from refusals; null while none was seen',
            ),
          in_flight: z.number().int().describe('Calls holding a slot now, on every node'),
          waiting: z.number().int().describe('Tasks parked waiting for a slot'),
          calls_in_window: z.number().int().describe('Calls started in the last minute'),
          refused_in_window: z.number().int().describe('Of those, refused by the upstream (429)'),
          hold_until: z
            .number()
            .int()
            .nullable()
            .describe('No call leaves before this time (epoch ms, from a Retry-After); null: no hold'),
          updated_at: z.number().int(),
        }),
      )
      .describe('The capacity pools (provider, upstream model, key), shared by every node through the store'),
  })
  .meta({ id: 'AdminUpstreams', description: 'The live state of the upstreams' });

export type AdminAccount = z.output<typeof adminAccountSchema>;
export type AdminAccountsPage = z.output<typeof adminAccountsPageSchema>;
export type AdminAccountsQuery = z.output<typeof adminAccountsQuerySchema>;
export type AdminCreatedAccount = z.output<typeof adminCreatedAccountSchema>;
export type AdminPasswordReset = z.output<typeof adminPasswordResetSchema>;
export type AdminApiKey = z.output<typeof adminApiKeySchema>;
export type AdminCreatedKey = z.output<typeof adminCreatedKeySchema>;
export type AdminBudget = z.output<typeof adminBudgetSchema>;
export type AdminUsage = z.output<typeof adminUsageSchema>;
export type AdminPolicies = z.output<typeof adminPoliciesSchema>;
export type AdminUpstreams = z.output<typeof adminUpstreamsSchema>;
