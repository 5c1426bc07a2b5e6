import type { z } from 'zod';
import { ApiError } from './errors.js';

/** `imageUrls[0]`-style name of an issue's path. */
function pathName(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (name, segment) =>
      typeof segment === 'number'
        ? `${name}[${segment}]`
        : name
          ? `${name}.${String(segment)}`
          : String(segment),
    '',
  );
}

/**
 * Validates `input` against a request schema (the same schema the OpenAPI document is generated
 * from) and returns the parsed value; the first problem becomes a 400 naming the field.
 * Schemas give field errors as predicates ("must be a string"), so the message reads
 * "count must be an integer".
 */
export function parseWith<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what = 'Request body',
): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue || issue.path.length === 0)
    throw new ApiError('invalid_request', `${what} must be a JSON object`);
  throw new ApiError('invalid_request', `${pathName(issue.path)} ${issue.message}`);
}

/** A field error: "is required" when absent, else `message`. */
export const fieldError = (message: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? 'is required' : message;
