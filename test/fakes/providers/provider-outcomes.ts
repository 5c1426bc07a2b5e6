/** Assertions on an adapter's outcomes, for the provider tests. */
import assert from 'node:assert/strict';
import type {
  PollOutcome,
  ProviderFailure,
  SubmitOutcome,
} from '../../../src/capabilities/providers/provider.js';

export function assertFailed(outcome: SubmitOutcome | PollOutcome): asserts outcome is ProviderFailure {
  assert.equal(outcome.kind, 'failed', `expected a failure, got ${JSON.stringify(outcome).slice(0, 300)}`);
}

export function assertPending(
  outcome: SubmitOutcome,
): asserts outcome is Extract<SubmitOutcome, { kind: 'pending' }> {
  assert.equal(outcome.kind, 'pending', `expected pending, got ${JSON.stringify(outcome).slice(0, 300)}`);
}
