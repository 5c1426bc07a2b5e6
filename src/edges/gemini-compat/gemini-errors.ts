import type { GeminiErrorBody } from '../../base/contract/gemini.js';
import type { ErrorBodies } from '../http/error-handler.js';

/** Google's status name (google.rpc.Code) for each HTTP status the route answers. */
const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  402: 'RESOURCE_EXHAUSTED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  408: 'DEADLINE_EXCEEDED',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  422: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  502: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export const geminiStatusOf = (status: number): string =>
  STATUS_NAMES[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');

/** The field a core refusal names, as the Gemini request calls it (a BadRequest field violation). */
export function geminiFieldOf(field: string | undefined): string | undefined {
  if (field === undefined) return undefined;
  const head = field.replace(/\[\d+\]$/, '');
  const renames: Record<string, string> = {
    prompt: 'contents',
    imageUrls: 'contents',
    mode: 'contents',
    count: 'generationConfig.candidateCount',
    aspect: 'generationConfig.imageConfig.aspectRatio',
    imageSize: 'generationConfig.imageConfig.imageSize',
    quality: 'generationConfig.imageConfig.quality',
  };
  return renames[head] ?? head;
}

/**
 * The one translation of an error answer into Google's shape: the HTTP status stays, `status` is
 * Google's name for it, an ErrorInfo detail carries Atelier's error type (`reason`) and a
 * BadRequest detail the field to blame.
 */
export function geminiErrorBody(
  status: number,
  type: string,
  message: string,
  field?: string,
): GeminiErrorBody {
  const blamed = geminiFieldOf(field);
  return {
    error: {
      code: status,
      message,
      status: geminiStatusOf(status),
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: type.toUpperCase(),
          domain: 'atelier',
        },
        ...(blamed === undefined
          ? []
          : [
              {
                '@type': 'type.googleapis.com/google.rpc.BadRequest',
                fieldViolations: [{ field: blamed, description: message }],
              },
            ]),
      ],
    },
  };
}

/** A refusal only the Gemini-native route makes (an unknown model, a failed or unfinished wait). */
export class GeminiCompatError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'GeminiCompatError';
  }
}

/** The Gemini-native route's errors (installErrorBodies): every answer in Google's shape. */
export const geminiErrorBodies: ErrorBodies = {
  body: geminiErrorBody,
  ownError(thrown, request, reply) {
    if (!(thrown instanceof GeminiCompatError)) return false;
    if (thrown.status >= 500) request.log.warn({ err: thrown }, 'Gemini-native request failed');
    reply.code(thrown.status).send(geminiErrorBody(thrown.status, thrown.type, thrown.message, thrown.field));
    return true;
  },
};

/** Statuses the Gemini-native routes document, with what each means. */
export const GEMINI_ERROR_STATUSES = {
  400: 'INVALID_ARGUMENT: a field is wrong (a BadRequest detail names it), or responseModalities lacks IMAGE',
  401: 'UNAUTHENTICATED: missing or wrong API key (x-goog-api-key or Authorization: Bearer)',
  403: 'PERMISSION_DENIED: the account’s tier policy does not allow the model, or a read-only API key on a route that creates (reason INSUFFICIENT_SCOPE)',
  404: 'NOT_FOUND: unknown model',
  409: 'ABORTED: the same Idempotency-Key is still being answered',
  413: 'INVALID_ARGUMENT: body or image too large',
  415: 'INVALID_ARGUMENT: an image is not png, jpeg, webp, gif or bmp',
  422: 'INVALID_ARGUMENT: an image cannot be decoded, or an Idempotency-Key reused with another body',
  402: 'RESOURCE_EXHAUSTED: a budget would be exceeded (reason BUDGET_EXCEEDED; the message names the budget and when it resets, Retry-After says when)',
  429: 'RESOURCE_EXHAUSTED: a tier policy’s quota would be exceeded (Retry-After says when)',
  500: 'INTERNAL: the upstream refused the request, or an internal error',
  502: 'INTERNAL: every image failed (the task’s message), or a reference could not be fetched',
  504: 'DEADLINE_EXCEEDED: the wait ceiling passed; the message gives the task ids to poll',
} as const;
