import type { z } from 'zod';
import { InvalidInput } from '../domain/errors.js';
import './zod-messages.js';

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

/** One validation problem as the validator reports it, and what the input as a whole is called. */
export interface IssueReport {
  path: readonly PropertyKey[];
  message?: string | undefined;
  code?: string | undefined;
  /** A custom issue marked `params: { sentence: true }` is a whole message, not a predicate. */
  sentence?: boolean;
  /** "Request body", "Query string", …: named when the issue is about the whole input. */
  what: string;
}

/**
 * The message of a refused input: "count must be an integer" (the field, then the predicate the
 * contract words, src/base/contract/zod-messages.ts), a whole sentence when the schema wrote one,
 * "Request body has unknown field x" about the input as a whole, and "Request body must be a JSON
 * object" when the input is not even an object.
 */
export function issueMessage({ path, message, code, sentence, what }: IssueReport): string {
  if (message && sentence) return message;
  if (path.length > 0) return `${pathName(path)} ${message ?? 'is invalid'}`;
  if (message && code !== undefined && code !== 'invalid_type') return `${what} ${message}`;
  return `${what} must be ${what === 'Request body' ? 'a JSON object' : 'valid'}`;
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
  if (!issue) throw new InvalidInput(`${what} must be a JSON object`);
  const sentence = (issue as { params?: { sentence?: unknown } }).params?.sentence === true;
  const message = issueMessage({
    path: issue.path,
    message: issue.message,
    code: issue.code,
    sentence,
    what,
  });
  const field = issue.path.length > 0 ? pathName(issue.path) : undefined;
  throw new InvalidInput(message, field);
}
