import { issueMessage } from '../../base/contract/parse-input.js';

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
  issues: readonly {
    instancePath: string;
    keyword?: string;
    message?: string;
    params?: { params?: unknown };
  }[],
  context: ValidationContext,
): string {
  const issue = issues[0];
  const custom = issue?.params?.params as { sentence?: unknown } | undefined;
  const path = (issue?.instancePath ?? '')
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
  return issueMessage({
    path,
    message: issue?.message,
    code: issue?.keyword,
    sentence: custom?.sentence === true,
    what: wholeInput[context ?? 'body'] ?? 'Request',
  });
}
