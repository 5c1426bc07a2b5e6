import type { FailureCause, ProviderFailure } from './provider.js';

/** Builds an adapter's failures, every message prefixed with the provider's label. */
export function failureFactory(label: string) {
  return (message: string, fields: Omit<ProviderFailure, 'kind' | 'message'>): ProviderFailure => ({
    kind: 'failed',
    message: `${label}: ${message}`,
    ...fields,
  });
}

/** Outcome class of an HTTP error status, before any provider-specific refinement. */
export function statusClass(status: number): { retryable: boolean; cause: FailureCause } {
  if (status === 429) return { retryable: true, cause: 'rate_limited' };
  if (status === 401 || status === 403) return { retryable: false, cause: 'unauthorized' };
  if (status === 408) return { retryable: true, cause: 'timeout' };
  if (status >= 500) return { retryable: true, cause: 'upstream_error' };
  return { retryable: false, cause: 'invalid_request' };
}
