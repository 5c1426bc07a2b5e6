import type { OpenAiErrorBody } from '../../base/contract/openai.js';
import type { ErrorBodies } from '../http/error-handler.js';
import { openAiParamOf } from './request-mapping.js';

/**
 * A refusal only the OpenAI-compatible routes make (an unknown model is a 404 there, a failed or
 * unfinished generation a 5xx). `retryable: false` tells OpenAI's clients not to resend: the
 * generation exists already, and a resend would make (and charge) another.
 */
export class OpenAiCompatError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly param: string | null = null,
    readonly retryable = true,
  ) {
    super(message);
    this.name = 'OpenAiCompatError';
  }
}

/** OpenAI's error category for a status: what its own API answers with. */
function openAiTypeOf(status: number): string {
  if (status >= 500) return 'server_error';
  if (status === 429) return 'rate_limit_error';
  return 'invalid_request_error';
}

/**
 * The one translation of an error answer into OpenAI's shape: the status stays, `code` carries
 * Atelier's error type, `param` the request field to blame under its OpenAI name.
 */
export function openAiErrorBody(
  status: number,
  code: string,
  message: string,
  field?: string | null,
): OpenAiErrorBody {
  return {
    error: {
      message,
      type: openAiTypeOf(status),
      param: openAiParamOf(field ?? undefined),
      code,
    },
  };
}

/**
 * The OpenAI-compatible routes' errors (registered for them with useErrorBodies): every answer in
 * OpenAI's shape, and their own refusals (OpenAiCompatError) with their status and code; one that
 * must not be resent says so (`x-should-retry: false`).
 */
export const openAiErrorBodies: ErrorBodies = {
  body: openAiErrorBody,
  ownError(thrown, request, reply) {
    if (!(thrown instanceof OpenAiCompatError)) return false;
    if (!thrown.retryable) reply.header('x-should-retry', 'false');
    if (thrown.status >= 500) request.log.warn({ err: thrown }, 'OpenAI-compatible request failed');
    reply.code(thrown.status).send(openAiErrorBody(thrown.status, thrown.code, thrown.message, thrown.param));
    return true;
  },
};

/** Statuses the OpenAI-compatible routes document, with what each means. */
export const OPENAI_ERROR_STATUSES = {
  400: 'invalid_request_error: a field is wrong (param names it)',
  401: 'invalid_request_error: missing or wrong API key (code unauthorized or invalid_api_key)',
  402: 'invalid_request_error: a budget would be exceeded (code budget_exceeded; the message names the budget and when it resets, Retry-After says when)',
  403: 'invalid_request_error: the account’s tier policy does not allow the model (code forbidden_model), a read-only API key on a route that creates (code insufficient_scope), or a website session whose password an operator reset (code password_change_required)',
  404: 'invalid_request_error: unknown model (code model_not_found)',
  409: 'invalid_request_error: the same Idempotency-Key is still being answered',
  410: 'invalid_request_error: the image refined, or a result read, was removed from storage with its work (deleted, or past its retention) (code gone)',
  413: 'invalid_request_error: body or image too large',
  415: 'invalid_request_error: an image is not png, jpeg, webp, gif or bmp',
  422: 'invalid_request_error: an image cannot be decoded, or an Idempotency-Key reused with another body',
  429: 'rate_limit_error: a tier policy’s quota would be exceeded (code quota_exceeded; Retry-After says when)',
  500: 'server_error: the upstream refused the request, or an internal error',
  502: 'server_error: every image failed (the task’s message), or a reference could not be fetched',
  504: 'server_error: the wait ceiling passed; the message gives the task ids to poll',
} as const;
