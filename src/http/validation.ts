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

/** Where a route schema found the problem, as Fastify reports it. */
type ValidationContext = 'body' | 'querystring' | 'params' | 'headers' | string | undefined;
const wholeInput: Record<string, string> = {
  body: 'Request body',
  querystring: 'Query string',
  params: 'Path',
  headers: 'Headers',
};

/**
 * The message of a route-schema refusal, worded like `parseWith`'s: "count must be an integer",
 * or "Request body must be a JSON object" when the whole input is wrong.
 */
export function validationMessage(
  issues: readonly { instancePath: string; message?: string; params?: { params?: unknown } }[],
  context: ValidationContext,
): string {
  const issue = issues[0];
  // A custom issue marked `params: { sentence: true }` is a whole message, not a predicate.
  const custom = issue?.params?.params as { sentence?: unknown } | undefined;
  if (issue?.message && custom?.sentence === true) return issue.message;
  const path = (issue?.instancePath ?? '')
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
  const what = wholeInput[context ?? 'body'] ?? 'Request';
  if (!issue || path.length === 0) return `${what} must be ${context === 'body' ? 'a JSON object' : 'valid'}`;
  return `${pathName(path)} ${issue.message ?? 'is invalid'}`;
}
