import { z } from 'zod';
import { TIERS } from '../domain/tiers.js';

/** Most days one usage report covers (a year, leap day included). */
export const MAX_USAGE_DAYS = 366;
/** Days a report covers when `from` is not given: the 30 days ending with `to`. */
export const DEFAULT_USAGE_DAYS = 30;

/** A real calendar day (`format: date`: 2026-02-30 and 0000-00-00 are none). */
const day = (what: string) => z.iso.date({ error: 'must be a date YYYY-MM-DD' }).optional().describe(what);

/** What no JSON Schema of two separate fields can state, written where a client reads it. */
const RANGE_RULE = `\`from\` is not after \`to\`, and the range covers at most ${MAX_USAGE_DAYS} days`;

/** GET /user/usage's query: an inclusive range of UTC days. */
export const usageQuerySchema = z.object({
  from: day(
    `First UTC day of the report (default: ${DEFAULT_USAGE_DAYS - 1} days before \`to\`); ${RANGE_RULE}`,
  ),
  to: day(`Last UTC day of the report, included (default: today, UTC); ${RANGE_RULE}`),
});

const counts = {
  completed: z.number().int().describe('Images that ended completed'),
  failed: z.number().int().describe('Images that ended failed (canceled ones included)'),
  cost_micros: z
    .number()
    .int()
    .describe(
      'What the completed images cost, in micro-dollars (USD; 1,000,000 = $1): failed images cost nothing, images whose route has no price count 0',
    ),
};

export const usageModelSchema = z.object({ model: z.string(), ...counts });

export const usageDaySchema = z.object({
  date: z.string().describe('UTC day (YYYY-MM-DD) on which the images reached their final state'),
  ...counts,
  models: z
    .array(usageModelSchema)
    .describe('Per catalog model, by model id; models with no image that day are left out'),
});

const quotaSchema = z
  .object({
    limit: z.number().int(),
    used: z.number().int().describe('Images requested in the period, less those that failed'),
    remaining: z.number().int(),
    resets_at: z.number().int().describe('When the period ends (epoch milliseconds, UTC)'),
  })
  .nullable();

/** What the account's tier policy allows and what is left; null fields do not restrict. */
export const allowanceSchema = z
  .object({
    tier: z.enum(TIERS),
    models: z.array(z.string()).nullable().describe('Model ids the tier may use; null: every model'),
    images_per_day: quotaSchema.describe('Per UTC day'),
    images_per_month: quotaSchema.describe('Per UTC calendar month'),
    tasks_in_flight: z
      .object({ limit: z.number().int(), current: z.number().int(), remaining: z.number().int() })
      .nullable()
      .describe('Tasks queued or in progress at once'),
  })
  .meta({ id: 'Allowance', description: "The tier policy's limits and what is left of them" });

const budgetStatusSchema = z
  .object({
    limit_micros: z.number().int(),
    spent_micros: z
      .number()
      .int()
      .describe(
        'Costs of completed images plus what unfinished ones hold (their most), of images requested in the period',
      ),
    reserved_micros: z.number().int().describe('The part of spent_micros still held by unfinished images'),
    remaining_micros: z.number().int(),
    resets_at: z.number().int().describe('When the period ends (epoch milliseconds, UTC)'),
  })
  .nullable();

/** The account's spend budgets in force and where they stand. */
export const budgetsSchema = z
  .object({
    daily: budgetStatusSchema.describe('Per UTC day; null: no daily budget'),
    monthly: budgetStatusSchema.describe('Per UTC calendar month; null: no monthly budget'),
    key: z
      .object({
        key_id: z.string(),
        daily: budgetStatusSchema.describe("The key's daily budget (UTC); null: none"),
        monthly: budgetStatusSchema.describe("The key's monthly budget (UTC); null: none"),
      })
      .nullable()
      .optional()
      .describe(
        'The budgets of the API key the request came with, counted over the tasks it created; null when it has none',
      ),
  })
  .meta({ id: 'Budgets', description: "The account's spend budgets (micro-dollars, USD) and what is left" });

/** GET /user/usage: images completed and failed per UTC day and model, and the remaining allowance. */
export const usageReportSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    totals: z.object(counts),
    days: z
      .array(usageDaySchema)
      .describe('Every day from `from` to `to`, in order, days without images included'),
    models: z.array(usageModelSchema).describe('Totals per model over the range'),
    allowance: allowanceSchema.nullable().describe("null when no policy applies to the account's tier"),
    currency: z.literal('USD').describe('The currency of every *_micros figure'),
    budgets: budgetsSchema.nullable().describe('null when the account has no budget'),
  })
  .meta({
    id: 'UsageReport',
    description: 'Usage of the account',
    examples: [
      {
        from: '2026-11-21',
        to: '2026-11-22',
        totals: { completed: 3, failed: 1, cost_micros: 201000 },
        days: [
          { date: '2026-11-21', completed: 0, failed: 0, cost_micros: 0, models: [] },
          {
            date: '2026-11-22',
            completed: 3,
            failed: 1,
            cost_micros: 201000,
            models: [{ model: 'base-image-2', completed: 3, failed: 1, cost_micros: 201000 }],
          },
        ],
        models: [{ model: 'base-image-2', completed: 3, failed: 1, cost_micros: 201000 }],
        allowance: null,
        currency: 'USD',
        budgets: null,
      },
    ],
  });

const absorbed = {
  absorbed_micros: z
    .number()
    .int()
    .describe(
      "What upstreams billed beyond quotes' maxima on these images, in micro-dollars (USD): absorbed by the operator, not part of cost_micros and never charged to the account; 0 when nothing was",
    ),
};

/** The operator's counts of one model: the account's, and what the operator absorbed. */
export const operatorUsageModelSchema = usageModelSchema.extend(absorbed);

/** The operator's counts of one UTC day. */
export const operatorUsageDaySchema = usageDaySchema.extend({
  ...absorbed,
  models: z
    .array(operatorUsageModelSchema)
    .describe('Per catalog model, by model id; models with no image that day are left out'),
});

/**
 * An account's usage as operators read it (the console, `atelier usage`): the account's own report,
 * with what upstreams billed beyond its quotes' maxima (absorbed) beside each spend.
 */
export const operatorUsageReportSchema = usageReportSchema
  .extend({
    totals: z.object({ ...counts, ...absorbed }),
    days: z
      .array(operatorUsageDaySchema)
      .describe('Every day from `from` to `to`, in order, days without images included'),
    models: z.array(operatorUsageModelSchema).describe('Totals per model over the range'),
  })
  .meta({
    id: 'OperatorUsageReport',
    description: "An account's usage report with what the operator absorbed under its quotes",
  });

export type UsageQuery = z.output<typeof usageQuerySchema>;
export type UsageReport = z.output<typeof usageReportSchema>;
export type OperatorUsageReport = z.output<typeof operatorUsageReportSchema>;
export type Allowance = z.output<typeof allowanceSchema>;
export type BudgetsReport = z.output<typeof budgetsSchema>;
