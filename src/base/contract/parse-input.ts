import type { z } from 'zod';
import { InvalidInput } from '../domain/errors.js';

/** `imageUrls[0]`-style name of an issue's path. */
export function pathName(path: readonly PropertyKey[]): string {
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
 * Validates `input` against a contract schema and returns the parsed value; the first problem is
 * an `InvalidInput` naming the field. Schemas give field errors as predicates ("must be a
 * string"), so the message reads "count must be an integer". Routes validate with the same schemas
 * before a handler runs; this is for callers that reach the core another way (the website's
 * generate, tests) and for bodies a route reads itself.
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what = 'Request body',
): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue || issue.path.length === 0) throw new InvalidInput(`${what} must be a JSON object`);
  const field = pathName(issue.path);
  throw new InvalidInput(`${field} ${issue.message}`, field);
}
