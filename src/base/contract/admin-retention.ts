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
