/**
 * The text of an upstream failure as callers see it (a task's `error`, the generate route's
 * `upstream_error`), built from an allow-list: a fixed sentence per failure class, the HTTP status,
 * and the provider's own error code/status/type only when it is one of the values that provider
 * documents. Nothing an upstream wrote as free text is copied.
 *
 * Security: upstreams and the proxies in front of them echo the key they refused, and not always
 * verbatim (split over lines, base64, URL-encoded, quoted in JSON). Scrubbing after the fact can
 * only remove the encodings someone thought of; an allow-list cannot leak what it never copies,
 * whichever account's or the deployment's key was used.
 */

/** `value` when it is one of `allowed`, else undefined. */
export function allowedToken(value: unknown, allowed: ReadonlySet<string>): string | undefined {
  return typeof value === 'string' && allowed.has(value) ? value : undefined;
}

/** The fixed sentence for an HTTP error status. */
export function statusSentence(status: number): string {
  switch (status) {
    case 400:
      return 'the upstream refused the request as invalid';
    case 401:
      return 'the upstream key was rejected; check the key set for this account or the deployment';
    case 402:
      return 'payment required: the upstream account is out of credit or over its spend limit';
    case 403:
      return 'the upstream key is not allowed to use this model or service';
    case 404:
      return 'not found upstream; check the model named in the catalog entry';
    case 408:
      return 'the upstream timed out';
    case 413:
      return 'the request is too large for the upstream';
    case 422:
      return 'the upstream refused the input';
    case 429:
      return 'rate limited by the upstream';
    default:
      return status >= 500 ? 'server error upstream' : 'unexpected answer from the upstream';
  }
}

/** `(HTTP 429 RESOURCE_EXHAUSTED)`: the status and whichever allow-listed tokens are present. */
export function statusSuffix(status: number, tokens: ReadonlyArray<string | undefined>): string {
  const named = [...new Set(tokens.filter((t): t is string => t !== undefined))];
  return `(HTTP ${status}${named.length > 0 ? ` ${named.join(' ')}` : ''})`;
}

/** The whole text of an HTTP failure: `sentence (HTTP status tokens)`. */
export function httpFailureText(
  status: number,
  tokens: ReadonlyArray<string | undefined> = [],
  sentence = statusSentence(status),
): string {
  return `${sentence} ${statusSuffix(status, tokens)}`;
}

/** google.rpc.Code names: the `error.status` of Google APIs. */
export const GOOGLE_RPC_CODES: ReadonlySet<string> = new Set([
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
]);

/** google.rpc.ErrorInfo reasons the Generative Language API sends. */
export const GOOGLE_ERROR_REASONS: ReadonlySet<string> = new Set([
  'API_KEY_INVALID',
  'API_KEY_EXPIRED',
  'API_KEY_SERVICE_BLOCKED',
  'API_KEY_HTTP_REFERRER_BLOCKED',
  'API_KEY_IP_ADDRESS_BLOCKED',
  'SERVICE_DISABLED',
  'BILLING_DISABLED',
  'CONSUMER_SUSPENDED',
  'RATE_LIMIT_EXCEEDED',
  'RESOURCE_EXHAUSTED',
  'ACCESS_TOKEN_EXPIRED',
  'USER_PROJECT_DENIED',
]);

/** OpenAI `error.code` values (documented and seen in openai-node). */
export const OPENAI_ERROR_CODES: ReadonlySet<string> = new Set([
  'invalid_api_key',
  'insufficient_quota',
  'rate_limit_exceeded',
  'moderation_blocked',
  'content_policy_violation',
  'model_not_found',
  'billing_hard_limit_reached',
  'billing_not_active',
  'image_generation_user_error',
  'invalid_image',
  'invalid_image_format',
  'invalid_value',
  'unsupported_value',
  'unknown_parameter',
  'missing_required_parameter',
  'server_error',
  'engine_overloaded',
  'unsupported_country_region_territory',
  'organization_verification_required',
]);

/** OpenAI `error.type` values. */
export const OPENAI_ERROR_TYPES: ReadonlySet<string> = new Set([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'rate_limit_error',
  'insufficient_quota',
  'tokens',
  'requests',
  'server_error',
  'api_error',
  'image_generation_user_error',
]);
