import type { DomainError, DomainOutcome } from '../../base/domain/errors.js';

/** The closed list of error types Atelier answers with, and their HTTP statuses. */
export const errorStatus = {
  invalid_request: 400,
  upstream_key_missing: 400,
  unauthorized: 401,
  invalid_api_key: 401,
  budget_exceeded: 402,
  forbidden: 403,
  forbidden_model: 403,
  insufficient_scope: 403,
  password_change_required: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  gone: 410,
  idempotency_in_progress: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  invalid_image: 422,
  idempotency_mismatch: 422,
  too_many_requests: 429,
  quota_exceeded: 429,
  headers_too_large: 431,
  internal_error: 500,
  upstream_error: 500,
  fetch_failed: 502,
  service_unavailable: 503,
} as const;

export type ErrorType = keyof typeof errorStatus;

/** An error meant for the caller: its message is safe to show. */
export class ApiError extends Error {
  readonly type: ErrorType;
  readonly status: number;

  constructor(type: ErrorType, message: string) {
    super(message);
    this.name = 'ApiError';
    this.type = type;
    this.status = errorStatus[type];
  }
}

/** The wire shape of every error body. */
export function errorBody(type: ErrorType, message: string): { error: { type: ErrorType; message: string } } {
  return { error: { type, message } };
}

/** The one mapping from the core's outcomes to the wire's error types (statuses follow from `errorStatus`). */
const typeOfOutcome: Record<DomainOutcome, ErrorType> = {
  invalid_input: 'invalid_request',
  not_found: 'not_found',
  gone: 'gone',
  conflict: 'conflict',
  idempotency_in_progress: 'idempotency_in_progress',
  not_authenticated: 'unauthorized',
  forbidden: 'forbidden',
  rate_limited: 'too_many_requests',
  quota_exceeded: 'quota_exceeded',
  budget_exceeded: 'budget_exceeded',
  forbidden_model: 'forbidden_model',
  too_large: 'payload_too_large',
  unsupported_media: 'unsupported_media_type',
  invalid_image: 'invalid_image',
  fetch_failed: 'fetch_failed',
  upstream_key_missing: 'upstream_key_missing',
  upstream_failed: 'upstream_error',
  misconfigured: 'internal_error',
};

/** The wire error for a domain error: same message, the type and status of its outcome. */
export function apiErrorOf(error: DomainError): ApiError {
  return new ApiError(typeOfOutcome[error.outcome], error.message);
}
