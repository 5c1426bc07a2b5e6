/**
 * What the core says when a request cannot be served. Capabilities throw these (or return them as
 * data); they know nothing of HTTP. `src/edges/http/errors.ts` maps each outcome to the wire's closed
 * list of `error.type` values and statuses, once; the CLI prints the message.
 * Messages are written for the caller: they must never carry secrets or internals.
 */
export abstract class DomainError extends Error {
  abstract readonly outcome: DomainOutcome;
}

/** The input is wrong; `field` names it when one field is to blame (`prompt`, `imageUrls[0]`). */
export class InvalidInput extends DomainError {
  readonly outcome = 'invalid_input' as const;
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'InvalidInput';
  }
}

/** The thing asked for does not exist for this caller (another account's is the same). */
export class NotFound extends DomainError {
  readonly outcome = 'not_found' as const;
  override name = 'NotFound';
}

/**
 * The thing asked for existed but its files were removed for good (a deleted work past the Undo
 * window, an expired work or upload, an erased account): 410, never coming back.
 */
export class Gone extends DomainError {
  readonly outcome = 'gone' as const;
  override name = 'Gone';
}

/** The request is valid but clashes with the current state (a finished task cannot be canceled). */
export class Conflict extends DomainError {
  readonly outcome = 'conflict' as const;
  override name = 'Conflict';
}

/**
 * A request with the same Idempotency-Key is still being processed (or was taken for dead and
 * retried): the caller should retry shortly. Not a `Conflict`: the wire names it apart.
 */
export class IdempotencyInProgress extends DomainError {
  readonly outcome = 'idempotency_in_progress' as const;
  override name = 'IdempotencyInProgress';
}

/** The caller's credentials are missing or wrong. */
export class NotAuthenticated extends DomainError {
  readonly outcome = 'not_authenticated' as const;
  override name = 'NotAuthenticated';
}

/** The caller is known but may not do this. */
export class Forbidden extends DomainError {
  readonly outcome = 'forbidden' as const;
  override name = 'Forbidden';
}

/** Too many attempts; try again after `retryAfterMs`. */
export class RateLimited extends DomainError {
  readonly outcome = 'rate_limited' as const;
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
    this.name = 'RateLimited';
  }
}

/** The account's tier policy allows no more images or tasks now; try again after `retryAfterMs`. */
export class QuotaExceeded extends DomainError {
  readonly outcome = 'quota_exceeded' as const;
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
    this.name = 'QuotaExceeded';
  }
}

/**
 * A budget (the account's or its key's, per day or month) would be exceeded by what the request may
 * cost; it resets after `retryAfterMs`.
 */
export class BudgetExceeded extends DomainError {
  readonly outcome = 'budget_exceeded' as const;
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
    this.name = 'BudgetExceeded';
  }
}

/** The account's tier policy does not allow this model. */
export class ForbiddenModel extends DomainError {
  readonly outcome = 'forbidden_model' as const;
  override name = 'ForbiddenModel';
}

/** A body or file is over its size limit. */
export class TooLarge extends DomainError {
  readonly outcome = 'too_large' as const;
  override name = 'TooLarge';
}

/** The bytes are not an image format Atelier accepts. */
export class UnsupportedMedia extends DomainError {
  readonly outcome = 'unsupported_media' as const;
  override name = 'UnsupportedMedia';
}

/** The bytes claim a supported format but cannot be decoded, or are over the pixel limit. */
export class InvalidImage extends DomainError {
  readonly outcome = 'invalid_image' as const;
  override name = 'InvalidImage';
}

/** A remote resource the caller named could not be fetched (DNS, refused, timeout, non-2xx). */
export class FetchFailed extends DomainError {
  readonly outcome = 'fetch_failed' as const;
  override name = 'FetchFailed';
}

/** The account has no upstream key for a provider that needs one. */
export class UpstreamKeyMissing extends DomainError {
  readonly outcome = 'upstream_key_missing' as const;
  override name = 'UpstreamKeyMissing';
}

/** The upstream provider refused or failed the request. */
export class UpstreamFailed extends DomainError {
  readonly outcome = 'upstream_failed' as const;
  override name = 'UpstreamFailed';
}

/** The deployment cannot serve this (a provider the catalog names is not configured). */
export class Misconfigured extends DomainError {
  readonly outcome = 'misconfigured' as const;
  override name = 'Misconfigured';
}

/**
 * A failure to fetch or check one reference image, said about that field ("imageUrls[0]: …") with
 * the same outcome, so a 422 stays a 422 and a 502 a 502. `field` is what an `InvalidInput` names.
 */
export function aboutReferenceField(error: DomainError, label: string, field = label): DomainError {
  const message = `${label}: ${error.message}`;
  if (error instanceof InvalidInput) return new InvalidInput(message, field);
  if (error instanceof FetchFailed) return new FetchFailed(message);
  if (error instanceof TooLarge) return new TooLarge(message);
  if (error instanceof UnsupportedMedia) return new UnsupportedMedia(message);
  if (error instanceof InvalidImage) return new InvalidImage(message);
  return error;
}

export type DomainOutcome =
  | 'invalid_input'
  | 'not_found'
  | 'gone'
  | 'conflict'
  | 'idempotency_in_progress'
  | 'not_authenticated'
  | 'forbidden'
  | 'rate_limited'
  | 'quota_exceeded'
  | 'budget_exceeded'
  | 'forbidden_model'
  | 'too_large'
  | 'unsupported_media'
  | 'invalid_image'
  | 'fetch_failed'
  | 'upstream_key_missing'
  | 'upstream_failed'
  | 'misconfigured';
