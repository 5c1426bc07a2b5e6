import type { AddressPolicy } from './address-policy.js';
import { outboundDeadline } from './outbound-errors.js';
import type { ConnectionState, PinnedConnector } from './pinned-connector.js';

/** One POST to a caller-named URL. */
export interface PostInit {
  /** How the caller names the URL in messages (`callbackUrl`). */
  subject: string;
  headers: Record<string, string>;
  body: string;
  /** Covers lookup, connect and the response headers. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * POSTs through the policy and the pinned connector (webhook deliveries): the URL is vetted like a
 * download at call time, the socket goes to the vetted address only, and redirects are never
 * followed (a 3xx is the answer).
 */
export function createPoster(policy: AddressPolicy, connector: PinnedConnector, userAgent: string) {
  /**
   * Resolves with the status code whatever it is; the response body is discarded. Errors name
   * `subject`: InvalidInput for a refused URL, FetchFailed for DNS, connection, timeout or reset.
   */
  async function postPinned(url: string, init: PostInit): Promise<{ statusCode: number }> {
    const { subject } = init;
    const deadline = outboundDeadline(init.timeoutMs, init.signal);
    const { signal } = deadline;
    let connection: ConnectionState = { connected: false };
    try {
      const target = await policy.vet(policy.parseTarget(url, subject), subject, signal);
      const { client, state } = connector.open(target, signal, init.timeoutMs);
      connection = state;
      try {
        const response = await client.request({
          path: `${target.url.pathname}${target.url.search}`,
          method: 'POST',
          headers: { 'user-agent': userAgent, ...init.headers },
          body: init.body,
          signal,
        });
        // Only the status matters; an unread body must still be heard when destroyed.
        response.body.on('error', () => {});
        response.body.destroy();
        return { statusCode: response.statusCode };
      } finally {
        await client.destroy().catch(() => {});
      }
    } catch (err) {
      throw deadline.failure(err, { subject, exchange: 'post', connected: connection.connected });
    }
  }

  return { postPinned };
}
