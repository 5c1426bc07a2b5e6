import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { UpstreamPoolsTable } from '../../../infra/store/schema/capacity.js';
import { learnedLimitNow, type PoolCallFacts, poolHold } from './pool-holds.js';
import { learningRules } from './pool-learning.js';

const rules = learningRules(60_000, 1000);
const NOW = 10_000_000;
const SPAN = 61_500;

function pool(patch: Partial<UpstreamPoolsTable> = {}): UpstreamPoolsTable {
  return {
    pool: 'openai/gpt-image-1/abc',
    provider: 'openai',
    upstream_model: 'gpt-image-1',
    key_hash: 'abc',
    learned_limit: null,
    successes: 0,
    burst_floor: 1,
    hold_until: 0,
    retry_at: 0,
    updated_at: NOW,
    refused_at: 0,
    ramp_since: 0,
    ramp_base: 0,
    quota_limit: null,
    quota_remaining: null,
    quota_reset_at: 0,
    quota_seen_at: 0,
    ...patch,
  };
}

const calls = (patch: Partial<PoolCallFacts> = {}): PoolCallFacts => ({
  inFlight: 0,
  inWindow: 0,
  oldestInWindow: null,
  sinceQuota: 0,
  ...patch,
});

describe('why a pool lets no call leave (the queue view)', () => {
  test('a Retry-After holds it first, whatever else is full', () => {
    const row = pool({ hold_until: NOW + 30_000, learned_limit: 1, refused_at: NOW - 1000 });
    assert.deepEqual(poolHold(rules, row, { maxInFlight: 1 }, calls({ inFlight: 3 }), NOW, SPAN), {
      reason: 'rate_limit_refusal',
      until: NOW + 30_000,
    });
    // A hold that ended holds nothing.
    assert.equal(poolHold(rules, pool({ hold_until: NOW - 1 }), {}, calls(), NOW, SPAN), null);
  });

  test('a spent request budget, until one more request is allowed', () => {
    const row = pool({
      quota_limit: 60,
      quota_remaining: 0,
      quota_seen_at: NOW,
      quota_reset_at: NOW + 60_000,
    });
    const hold = poolHold(rules, row, {}, calls(), NOW, SPAN);
    assert.equal(hold?.reason, 'request_budget');
    assert.ok((hold?.until ?? 0) > NOW);
  });

  test("the catalog's calls per minute, until the oldest call leaves the window", () => {
    const hold = poolHold(
      rules,
      pool(),
      { requestsPerMinute: 5, imagesPerMinute: 3 },
      calls({ inWindow: 3, oldestInWindow: NOW - 20_000 }),
      NOW,
      SPAN,
    );
    assert.deepEqual(hold, { reason: 'per_minute_limit', until: NOW - 20_000 + SPAN + 1 });
    assert.equal(poolHold(rules, pool(), { requestsPerMinute: 5 }, calls({ inWindow: 4 }), NOW, SPAN), null);
  });

  test('calls at once: the catalog’s, or a lower one learned under it, or learned alone', () => {
    assert.deepEqual(poolHold(rules, pool(), { maxInFlight: 2 }, calls({ inFlight: 2 }), NOW, SPAN), {
      reason: 'configured_limit',
      until: null,
    });
    assert.equal(poolHold(rules, pool(), { maxInFlight: 2 }, calls({ inFlight: 1 }), NOW, SPAN), null);
    const learned = pool({ learned_limit: 3, refused_at: NOW - 1000 });
    assert.deepEqual(poolHold(rules, learned, { maxInFlight: 8 }, calls({ inFlight: 3 }), NOW, SPAN), {
      reason: 'learned_limit',
      until: null,
    });
    assert.deepEqual(poolHold(rules, learned, {}, calls({ inFlight: 4 }), NOW, SPAN), {
      reason: 'learned_limit',
      until: null,
    });
    // No limit learned, none set: never full.
    assert.equal(poolHold(rules, pool(), {}, calls({ inFlight: 500 }), NOW, SPAN), null);
  });

  test('a learned limit is shown while in force, not once forgotten', () => {
    assert.equal(learnedLimitNow(rules, pool({ learned_limit: 4, refused_at: NOW - 1000 }), NOW), 4);
    assert.equal(
      learnedLimitNow(rules, pool({ learned_limit: 4, refused_at: NOW - rules.forgetMs - 1 }), NOW),
      null,
    );
  });
});
