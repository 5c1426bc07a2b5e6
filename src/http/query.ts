import { ApiError } from './errors.js';

/**
 * Reads an optional non-negative integer query parameter (decimal digits only), rejecting anything
 * else with a 400 naming it. Values beyond 2^53 − 1 read as 2^53 − 1 (then checked against `max`).
 */
export function integerParam(
  query: Record<string, unknown>,
  name: string,
  options: { default: number; min: number; max?: number },
): number {
  const raw = query[name];
  if (raw === undefined || raw === '') return options.default;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw))
    throw new ApiError('invalid_request', `${name} must be an integer`);
  const value = Math.min(Number(raw), Number.MAX_SAFE_INTEGER);
  if (value < options.min || (options.max !== undefined && value > options.max)) {
    const range =
      options.max === undefined ? `at least ${options.min}` : `between ${options.min} and ${options.max}`;
    throw new ApiError('invalid_request', `${name} must be ${range}`);
  }
  return value;
}

/**
 * Past this page every listing is empty (no account holds 10^12 items); the store is asked for it
 * instead of a larger one, so `(page − 1) × limit` stays an exact integer that fits an SQL OFFSET.
 */
export const STORE_PAGE_CEILING = 1_000_000_000_000;

/**
 * `page` of a paged listing: any integer ≥ 1, a page past the end being empty (DESIGN.md §2).
 * `page` is what the caller asked (echoed in the answer), `storePage` what to ask the store.
 */
export function pageParam(query: Record<string, unknown>): { page: number; storePage: number } {
  const page = integerParam(query, 'page', { default: 1, min: 1 });
  return { page, storePage: Math.min(page, STORE_PAGE_CEILING) };
}
