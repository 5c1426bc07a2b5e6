/** Error types the API answers with (DESIGN.md §2); other strings may appear from newer servers. */
export type KnownApiErrorType =
  | 'invalid_request'
  | 'upstream_key_missing'
  | 'unauthorized'
  | 'invalid_api_key'
  | 'insufficient_scope'
  | 'forbidden'
  | 'forbidden_model'
  | 'not_found'
  | 'gone'
  | 'conflict'
  | 'request_timeout'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'invalid_image'
  | 'too_many_requests'
  | 'quota_exceeded'
  | 'budget_exceeded'
  | 'headers_too_large'
  | 'internal_error'
  | 'upstream_error'
  | 'fetch_failed'
  | 'service_unavailable'
  /** Client-side: the server answered, but not with the documented shape. */
  | 'unexpected_response';

/** The server answered with an error (`{error:{type,message}}`) or with a body the client cannot read. */
export class AtelierApiError extends Error {
  readonly status: number;
  readonly type: KnownApiErrorType | (string & {});

  constructor(status: number, type: string, message: string) {
    super(message);
    this.name = 'AtelierApiError';
    this.status = status;
    this.type = type;
  }
}

/** No answer from the server: refused, DNS failure, reset, or timeout. */
export class AtelierConnectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AtelierConnectionError';
  }
}
