import { geminiErrorBodySchema } from '../../base/contract/gemini.js';
import { GEMINI_ERROR_STATUSES } from './gemini-errors.js';

type ErrorStatus = keyof typeof GEMINI_ERROR_STATUSES;

/** The error answers a route declares, in Google's shape. */
export function geminiErrorResponses(statuses: readonly ErrorStatus[]) {
  return Object.fromEntries(
    [...statuses, 500 as const].map((status) => [
      status,
      {
        description: GEMINI_ERROR_STATUSES[status],
        content: { 'application/json': { schema: geminiErrorBodySchema } },
      },
    ]),
  );
}
