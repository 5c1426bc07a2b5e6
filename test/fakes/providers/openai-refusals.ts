// OpenAI's refusals on rate and quota, as its error-codes guide shows them (429 with
// `rate_limit_exceeded` or `insufficient_quota`), for the loopback OpenAI stand-in.
import type { FakeAnswer } from './fake-http.js';
import { type BudgetState, openAIBudgetHeaders } from './upstream-limit.js';

/**
 * OpenAI's answer past a rate limit: 429 `rate_limit_exceeded`, with `retry-after` and
 * `retry-after-ms`, and the request budget's `x-ratelimit-*` headers when the limit keeps one.
 */
export function rateLimited(model: string, retryAfterMs: number, budget?: BudgetState): FakeAnswer {
  return {
    status: 429,
    headers: {
      'retry-after': String(Math.ceil(retryAfterMs / 1000)),
      'retry-after-ms': String(retryAfterMs),
      ...openAIBudgetHeaders(budget),
    },
    json: {
      error: {
        message: `Rate limit reached for ${model} in organization org-fake on requests per min (RPM). Please try again later.`,
        type: 'requests',
        param: null,
        code: 'rate_limit_exceeded',
      },
    },
  };
}

/** OpenAI's answer to an organization past its billing limit: 429 `insufficient_quota`. */
export function quotaSpent(): FakeAnswer {
  return {
    status: 429,
    json: {
      error: {
        message:
          'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
        type: 'insufficient_quota',
        param: null,
        code: 'insufficient_quota',
      },
    },
  };
}
