/**
 * What creating a generation can answer besides authentication, wherever it is asked (the API and
 * the website): the catalog's and the policies' refusals, a body cut short or too large, a reference
 * image that cannot be fetched or read (413, 415, 422, 502), the upstream refusing at submit, and a
 * parent work whose files were removed (410).
 * Error types of the closed list (src/edges/http/errors.ts); the routes' `errorResponses` checks them.
 */
export const GENERATE_ERRORS = [
  'invalid_request',
  'upstream_key_missing',
  'forbidden_model',
  'quota_exceeded',
  'budget_exceeded',
  'request_timeout',
  'payload_too_large',
  'unsupported_media_type',
  'invalid_image',
  'upstream_error',
  'fetch_failed',
  // parentId naming a work whose files the lifecycle removed (deleted or expired).
  'gone',
] as const;
