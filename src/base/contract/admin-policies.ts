/**
 * The wire shapes of the tier policies' edits in the operator console's API (`/api/admin/v1/policies`):
 * the policy document is the one ATELIER_POLICY_FILE holds, kept in the store in versions (the
 * highest in force on every node within ATELIER_CONFIG_REFRESH_MS). Edits are validated as the file
 * is: a refusal is 400 invalid_request with the same messages.
 */
import { z } from 'zod';
import { TIERS } from '../domain/tiers.js';
import { integerQuery } from './paging.js';

export const POLICY_SOURCES = ['file', 'api', 'console'] as const;

const limitField = (what: string) => z.number().int().min(1).describe(`${what}; absent: no limit`).optional();

/** One tier's policy as the document holds it (every field optional: an absent one does not restrict). */
export const tierPolicySchema = z
  .object({
    models: z.array(z.string()).optional().describe('Model ids the tier may use; absent: every model'),
    images_per_day: limitField('Images a day (UTC)'),
    images_per_month: limitField('Images a month (UTC)'),
    tasks_in_flight: limitField('Tasks queued or in progress at once'),
    retention_results_days: limitField(
      "Days the tier's results (works) are kept (the shortest retention applies)",
    ),
    retention_uploads_days: limitField("Days the tier's uploads are kept (the shortest retention applies)"),
  })
  .meta({ id: 'AdminTierPolicy' });

/** Which version is in force, who wrote it, and when. */
export const policyVersionHeadSchema = z
  .object({
    version: z.number().int().describe('1, 2, …: the highest is in force on every node'),
    source: z
      .enum(POLICY_SOURCES)
      .describe(
        'file: a start seeded or imported ATELIER_POLICY_FILE; api: the admin API; console: the console',
      ),
    created_at: z.number().int().describe('When it was written, epoch ms'),
    created_by: z.string().describe('The operator (e-mail), or "file:<path>" for a start'),
    file_sha256: z.string().nullable().describe("The file's SHA-256 (hex), for a version from the file"),
  })
  .meta({ id: 'AdminPolicyVersionHead' });

export const policyVersionSchema = policyVersionHeadSchema
  .extend({
    tiers: z.partialRecord(z.enum(TIERS), tierPolicySchema).describe('The document: each tier with a policy'),
  })
  .meta({ id: 'AdminPolicyVersion' });

export const policyVersionsSchema = z
  .object({ items: z.array(policyVersionSchema).describe('Newest first (the first is in force)') })
  .meta({ id: 'AdminPolicyVersions' });

export const policyVersionsQuerySchema = z.object({
  limit: integerQuery({ fallback: 20, min: 1, max: 100 }).describe(
    'How many versions, newest first; default 20, at most 100',
  ),
});

const expectedVersion = z
  .number({ error: 'must be a whole number' })
  .int('must be a whole number')
  .min(0, 'must be a whole number')
  .describe('The version the edit was made on (GET /policies `in_force.version`); another in force is 409');

/**
 * PUT /policies: the whole document, as ATELIER_POLICY_FILE holds it, with the version it replaces.
 * Loose on purpose: the document is validated as the file is, with the file's messages.
 */
export const replacePoliciesSchema = z
  .looseObject({
    expected_version: expectedVersion,
    tiers: z
      .record(z.string(), z.unknown())
      .describe('Each tier with a policy (AdminTierPolicy); a tier left out is unrestricted'),
  })
  .meta({ id: 'AdminReplacePolicies' });

const patchLimit = (what: string) =>
  z.number().nullable().optional().describe(`${what}; null removes the limit; absent leaves it`);

/** PATCH /policies/tiers/{tier}: one tier's limits (loose: validated as the file is). */
export const patchTierPolicySchema = z
  .looseObject({
    expected_version: expectedVersion.optional(),
    models: z
      .array(z.string())
      .nullable()
      .optional()
      .describe('Model ids the tier may use; null: every model; absent leaves them'),
    images_per_day: patchLimit('Images a day (UTC)'),
    images_per_month: patchLimit('Images a month (UTC)'),
    tasks_in_flight: patchLimit('Tasks queued or in progress at once'),
    retention_results_days: patchLimit("Days the tier's results (works) are kept"),
    retention_uploads_days: patchLimit("Days the tier's uploads are kept"),
  })
  .meta({ id: 'AdminPatchTierPolicy' });

export const tierParamsSchema = z.object({ tier: z.enum(TIERS).describe('The tier') });

export type AdminPolicyVersion = z.output<typeof policyVersionSchema>;
export type AdminPolicyVersions = z.output<typeof policyVersionsSchema>;
