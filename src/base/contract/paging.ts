import { z } from 'zod';

/** The fields every paged listing answers with beside its items. */
export const pageFields = {
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
  total_pages: z.number().int().describe('ceil(total / limit); 0 when total is 0'),
};

/** A paged listing of `item`, newest first. */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item).describe('Newest first'), ...pageFields });

/**
 * An integer query parameter (decimal digits, optionally signed). Absent reads as `fallback`;
 * given empty (`?limit=`) it is refused like any other non-integer, as docs/api.md says; values beyond 2^53 − 1 read as 2^53 − 1 (then checked against the range), so
 * "page=99999999999999999999" is a far page, not an error. Messages name the parameter the way
 * the rest of the API does: "limit must be an integer" (not a number at all), "page must be at
 * least 1", "limit must be between 1 and 50" (an integer out of range, "-1" included).
 */
export function integerQuery(options: { fallback: number; min: number; max?: number }) {
  const { fallback, min, max } = options;
  const range = max === undefined ? `at least ${min}` : `between ${min} and ${max}`;
  // What the document shows: the integer the caller sends (the query string carries it as text).
  // On the input string itself, where the JSON Schema of a query parameter is read from.
  const documented = {
    type: 'integer',
    minimum: min,
    ...(max === undefined ? {} : { maximum: max }),
    default: fallback,
  };
  return z
    .string({ error: 'must be an integer' })
    .meta(documented)
    .optional()
    .refine((raw) => raw === undefined || /^[-+]?\d+$/.test(raw), {
      error: 'must be an integer',
      abort: true,
    })
    .transform((raw) => (raw === undefined ? fallback : Math.min(Number(raw), Number.MAX_SAFE_INTEGER)))
    .refine((value) => value >= min && (max === undefined || value <= max), { error: `must be ${range}` });
}

/**
 * Past this page every listing is empty (no account holds 10^12 items); the store is asked for it
 * instead of a larger one, so `(page − 1) × limit` stays an exact integer that fits an SQL OFFSET.
 */
const STORE_PAGE_CEILING = 1_000_000_000_000;

/** The page of a paged listing: what the caller asked (echoed back), and what to ask the store. */
export const storePageOf = (page: number) => Math.min(page, STORE_PAGE_CEILING);

/** `page` (any integer ≥ 1, default 1) and `limit` (1 to `maxLimit`, default `defaultLimit`). */
export const pageQuery = (maxLimit: number, defaultLimit = 20) => ({
  page: integerQuery({ fallback: 1, min: 1 }).describe(
    '1-based page; default 1; a page past the end is empty',
  ),
  limit: integerQuery({ fallback: defaultLimit, min: 1, max: maxLimit }).describe(
    `Page size; default ${defaultLimit}, at most ${maxLimit}`,
  ),
});
