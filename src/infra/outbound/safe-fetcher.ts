import { tmpdir } from 'node:os';
import { createAddressPolicy, type Lookup } from './address-policy.js';
import { createDownloader } from './download.js';
import { outboundDeadline } from './outbound-errors.js';
import { createPinnedConnector, type PinnedConnectorOptions } from './pinned-connector.js';
import { createPoster } from './post.js';

export type { ResolvedAddress } from './address-policy.js';
export type { FetchedFile } from './download.js';

export interface SafeFetchOptions extends PinnedConnectorOptions {
  /** 'host' or 'host:port' entries (from ATELIER_UPLOAD_ALLOWED_HOSTS): exempt from the public-address check. */
  allowedHosts?: string[];
  /** Largest accepted body, counted after content decoding. Default 25 MiB. */
  maxBytes?: number;
  /** Time allowed for the whole fetch: every lookup, redirect and the full body. Default 30 s. */
  totalTimeoutMs?: number;
  /** Redirects followed before giving up. Default 3. */
  maxRedirects?: number;
  /** Where downloads are written. Default os.tmpdir(). */
  tempDir?: string;
  /** The resolver. Default node:dns lookup with all answers. Called exactly once per hop. */
  lookup?: Lookup;
  /** Sent as User-Agent. */
  userAgent?: string;
  /** Sent as Accept on downloads. Default image/*. */
  accept?: string;
}

const DEFAULT_MAX_BYTES = 25 * 1024 * 1024;
const DEFAULT_USER_AGENT = 'Atelier/0.1 (reference image fetch)';

/**
 * Creates the one fetcher through which every caller-named URL is reached: uploads' source_url,
 * generate's imageUrls, upstream result URLs (downloads) and webhook callbackUrls (vet, post).
 */
export function createSafeFetcher(options: SafeFetchOptions = {}) {
  const totalTimeoutMs = options.totalTimeoutMs ?? 30_000;
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const policy = createAddressPolicy({
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.lookup ? { lookup: options.lookup } : {}),
  });
  const connector = createPinnedConnector(options);
  const { fetchToFile } = createDownloader(policy, connector, {
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
    totalTimeoutMs,
    maxRedirects: options.maxRedirects ?? 3,
    tempDir: options.tempDir ?? tmpdir(),
    userAgent,
    ...(options.accept ? { accept: options.accept } : {}),
  });
  const { postPinned } = createPoster(policy, connector, userAgent);

  /**
   * Checks a caller-named URL against the policy (scheme, no credentials, port, every resolved
   * address) without connecting. Errors name `subject`: InvalidInput for a refused URL,
   * FetchFailed when the host name does not resolve.
   */
  async function vetUrl(url: string, subject: string, opts: { signal?: AbortSignal } = {}): Promise<void> {
    const deadline = outboundDeadline(totalTimeoutMs, opts.signal);
    try {
      await policy.vet(policy.parseTarget(url, subject), subject, deadline.signal);
    } catch (err) {
      // Worded like a POST's failure: this vets where a webhook will be posted.
      throw deadline.failure(err, { subject, exchange: 'post', connected: false });
    }
  }

  return { fetchToFile, vetUrl, postPinned };
}

export type SafeFetcher = ReturnType<typeof createSafeFetcher>;
