import { integerQuery, storePageOf } from '../../base/contract/paging.js';
import { ApiError } from './errors.js';

// For routes that still read their query by hand (the website's, until they declare schemas):
// the same rules and messages as the contract's query schemas, from the same definition.

/**
 * Reads an optional non-negative integer query parameter (decimal digits only), rejecting anything
 * else with a 400 naming it. Values beyond 2^53 − 1 read as 2^53 − 1 (then checked against `max`).
 */
export function integerParam(
  query: Record<string, unknown>,
  name: string,
  options: { default: number; min: number; max?: number },
): number {
  const { default: fallback, ...range } = options;
  const result = integerQuery({ fallback, ...range }).safeParse(query[name]);
  if (result.success) return result.data;
  throw new ApiError('invalid_request', `${name} ${result.error.issues[0]?.message ?? 'is invalid'}`);
}

/**
 * `page` of a paged listing: any integer ≥ 1, a page past the end being empty (DESIGN.md §2).
 * `page` is what the caller asked (echoed in the answer), `storePage` what to ask the store.
 */
export function pageParam(query: Record<string, unknown>): { page: number; storePage: number } {
  const page = integerParam(query, 'page', { default: 1, min: 1 });
  return { page, storePage: storePageOf(page) };
}
