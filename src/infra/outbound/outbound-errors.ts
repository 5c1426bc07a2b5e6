import { DomainError, FetchFailed, TooLarge } from '../../base/domain/errors.js';

/** What was going on when an outbound exchange failed. */
interface FailureContext {
  /** How the caller names the URL in messages: `source_url`, `callbackUrl`, `the result URL`. */
  subject: string;
  /** A download reads a whole body; a post only waits for the status line. */
  exchange: 'download' | 'post';
  /** The exchange's own deadline. */
  timeoutMs: number;
  /** The deadline fired. */
  timedOut: boolean;
  /** The caller's signal fired. */
  cancelled: boolean;
  /** A socket was opened before the failure. */
  connected: boolean;
}

/**
 * The one mapping of outbound failures to domain errors. Domain errors (a refused URL, a bad
 * status, a body over the cap) pass through. Messages never carry the underlying error text:
 * a refused port, a reset and a connect timeout read the same, so the fetcher is no port scanner.
 */
function outboundError(err: unknown, context: FailureContext): DomainError {
  if (err instanceof DomainError) return err;
  const { subject } = context;
  const download = context.exchange === 'download';
  const failed = (message: string) => new FetchFailed(message, { cause: err });
  const code = (err as { code?: unknown } | null)?.code;
  const timedOut =
    context.timedOut ||
    (!context.cancelled && (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT'));
  if (timedOut) {
    return failed(
      download
        ? `Fetching ${subject} timed out`
        : `${subject} did not answer within ${context.timeoutMs / 1000} s`,
    );
  }
  if (context.cancelled)
    return failed(download ? `Fetching ${subject} was cancelled` : `The request to ${subject} was cancelled`);
  if (!context.connected) return failed(`Could not connect to the host of ${subject}`);
  if (!download) return failed(`The host of ${subject} closed the connection`);
  if (code === 'UND_ERR_SOCKET') return failed(`The host of ${subject} closed the connection mid-download`);
  if (typeof code === 'string' && code.startsWith('Z_'))
    return failed(`${subject} sent a malformed compressed body`);
  return failed(`The download of ${subject} failed`);
}

/** An exchange's deadline joined with the caller's signal, and the mapping of its failures. */
export function outboundDeadline(timeoutMs: number, callerSignal: AbortSignal | undefined) {
  const timeout = AbortSignal.timeout(timeoutMs);
  return {
    /** Aborts at the deadline or when the caller aborts. */
    signal: callerSignal ? AbortSignal.any([timeout, callerSignal]) : timeout,
    /** The domain error for `err`, told apart by which of the two (if any) ended the exchange. */
    failure(err: unknown, context: Pick<FailureContext, 'subject' | 'exchange' | 'connected'>): DomainError {
      return outboundError(err, {
        ...context,
        timeoutMs,
        timedOut: timeout.aborted,
        cancelled: callerSignal?.aborted === true,
      });
    },
  };
}

/** A body over the cap (counted after content decoding). */
export function tooLarge(maxBytes: number): TooLarge {
  return new TooLarge(`The image is larger than ${Math.floor(maxBytes / (1024 * 1024))} MB`);
}
