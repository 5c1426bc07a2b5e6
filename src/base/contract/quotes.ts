import { z } from 'zod';

/** How long a quote binds (docs/api.md, "POST /api/v1/quotes"). */
export const QUOTE_TTL_SECONDS = 15 * 60;

/** The answer of POST /api/v1/quotes. */
export const quoteSchema = z
  .object({
    quote_id: z
      .string()
      .describe(
        'Pass as quote_id with the same generate body (on the same account, before expires_at): the request is then never charged more than max_cost_micros',
      ),
    expected_cost_micros: z
      .number()
      .int()
      .describe(
        "What the request is expected to cost: count × the catalog's per-image figure of its size and quality",
      ),
    max_cost_micros: z
      .number()
      .int()
      .describe('The most it can be charged under this quote: count × max_per_image_micros'),
    max_per_image_micros: z.number().int().describe('The most one of its images can be charged'),
    count: z.number().int(),
    currency: z.literal('USD'),
    expires_at: z
      .number()
      .int()
      .describe(`Unix seconds; a quote binds for ${QUOTE_TTL_SECONDS / 60} minutes`),
  })
  .meta({ id: 'Quote', description: 'A price quote that binds: the most a generate body can be charged' });

export type Quote = z.output<typeof quoteSchema>;
