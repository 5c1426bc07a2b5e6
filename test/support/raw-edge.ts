/** Raw-socket checks of the HTTP edge: requests written by hand, and the error shape read off the socket. */
import { assertError } from './api-helpers.js';
import type { RawResponse } from './raw-http.js';

/** Asserts the error shape on a response read off a raw socket. */
export function assertRawError(response: RawResponse, status: number, type: string): string {
  return assertError(
    { statusCode: response.status, headers: response.headers, json: () => response.json },
    status,
    type,
  );
}

/** An HTTP/1.1 request as bytes: its lines, the blank line, then `body`. */
export const rawRequestText = (lines: string[], body = '') => `${lines.join('\r\n')}\r\n\r\n${body}`;
