import { z } from 'zod';

const days = (what: string) =>
  z
    .int({ error: 'must be a whole number of days from 1 to 36500, or null' })
    .min(1, 'must be a whole number of days from 1 to 36500, or null')
    .max(36_500, 'must be a whole number of days from 1 to 36500, or null')
    .nullable()
    .optional()
    .describe(
      `Days ${what} of the account are kept; null removes the account's own (the tier's or deployment's applies)`,
    );

export const adminRetentionBodySchema = z
  .looseObject({
    results_days: days('results (works and their images)'),
    uploads_days: days('uploads'),
  })
  .describe("An account's own retention periods");

export const adminRetentionSchema = z
  .object({
    results_days: z.int().nullable().describe("The account's own results retention in days; null: none"),
    uploads_days: z.int().nullable().describe("The account's own uploads retention in days; null: none"),
  })
  .describe(
    "The account's own retention as set (the shortest of account, API key, tier and deployment applies)",
  );

const effectiveDaysSchema = (what: string) =>
  z
    .object({
      days: z
        .int()
        .nullable()
        .describe(`Days ${what} are kept: the shortest retention set; null: kept until deleted`),
      source: z
        .enum(['account', 'tier', 'deployment'])
        .nullable()
        .describe('Where `days` comes from (the most specific place when two set the same); null with days'),
      account: z.int().nullable().describe("The account's own (PUT /accounts/{id}/retention); null: none"),
      tier: z.int().nullable().describe("The account's tier policy's; null: none"),
      deployment: z
        .int()
        .nullable()
        .describe('The deployment’s (ATELIER_RETENTION_RESULTS_DAYS / _UPLOADS_DAYS); null: none'),
    })
    .describe(`The retention of ${what} in force`);

export const adminEffectiveRetentionSchema = z
  .object({
    results: effectiveDaysSchema('results (works and their images)'),
    uploads: effectiveDaysSchema('uploads'),
  })
  .meta({
    id: 'AdminEffectiveRetention',
    description:
      "The account's retention in force, results and uploads each on their own: the shortest of account, tier and deployment",
  });

export type AdminEffectiveRetention = z.output<typeof adminEffectiveRetentionSchema>;
