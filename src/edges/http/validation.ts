import { pathName } from '../../base/contract/parse-input.js';

/** Where a route schema found the problem, as Fastify reports it. */
type ValidationContext = 'body' | 'querystring' | 'params' | 'headers' | string | undefined;
const wholeInput: Record<string, string> = {
  body: 'Request body',
  querystring: 'Query string',
  params: 'Path',
  headers: 'Headers',
};

/**
 * The message of a route-schema refusal, worded like `parseInput`'s: "count must be an integer",
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
