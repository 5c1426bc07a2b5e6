import { ApiError } from './errors.js';

/** Reads an optional positive integer query parameter, rejecting anything else with a 400 naming it. */
export function integerParam(
  query: Record<string, unknown>,
  name: string,
  options: { default: number; min: number; max?: number },
): number {
  const raw = query[name];
  if (raw === undefined || raw === '') return options.default;
  if (typeof raw !== 'string' || !/^\d{1,9}$/.test(raw))
    throw new ApiError('invalid_request', `${name} must be an integer`);
  const value = Number(raw);
  if (value < options.min || (options.max !== undefined && value > options.max)) {
    const range =
      options.max === undefined ? `at least ${options.min}` : `between ${options.min} and ${options.max}`;
    throw new ApiError('invalid_request', `${name} must be ${range}`);
  }
  return value;
}
