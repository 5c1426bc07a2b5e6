import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  afterQuota,
  afterRefusal,
  afterSuccess,
  callsLimit,
  type LearningState,
  learningRules,
  quotaRoom,
  rampStart,
  refusalKind,
  successesPerIncrease,
} from './pool-learning.js';

const rules = learningRules(60_000, 1000);
const T0 = 1_000_000;

function fresh(): LearningState {
  return {
    learned_limit: null,
    successes: 0,
    burst_floor: 1,
    hold_until: 0,
    refused_at: 0,
    ramp_since: 0,
    ramp_base: 0,
    quota_limit: null,
    quota_remaining: null,
    quota_reset_at: 0,
    quota_seen_at: 0,
  };
}

const apply = (row: LearningState, patch: Partial<LearningState> | undefined): LearningState => ({
  ...row,
  ...patch,
});

describe('calls at once: the ramp of a pool with no learned limit', () => {
  test('a fresh pool is unbounded until a burst starts its ramp, which grows F-fold every step, as far as its calls prove', () => {
    const row = fresh();
    assert.equal(callsLimit(rules, row, T0).limit, Number.POSITIVE_INFINITY);
    const ramping = apply(row, rampStart(rules, row, T0));
    const τ = rules.rampStepMs;
    const F = rules.rampFactor;
    assert.equal(callsLimit(rules, ramping, T0).limit, rules.rampStart);
    const proven = (n: number) => ({ inFlight: n, proven: n, nextProof: undefined });
    assert.equal(callsLimit(rules, ramping, T0 + τ, proven(4)).limit, Math.max(rules.rampStart, 4 * F));
    assert.equal(callsLimit(rules, ramping, T0 + τ, proven(8)).limit, 8 * F);
    assert.equal(
      callsLimit(rules, ramping, T0 + τ, proven(100)).limit,
      rules.rampStart * F,
      'at most F-fold per step',
    );
    assert.equal(callsLimit(rules, ramping, T0 + 3 * τ, proven(16)).limit, 16 * F);
    // Calls not yet proven (a slow store, calls that left late) hold the ramp where it is.
    assert.equal(callsLimit(rules, ramping, T0 + 3 * τ, proven(0)).limit, rules.rampStart);
    assert.equal(callsLimit(rules, ramping, T0 + 3 * τ, proven(4)).limit, Math.max(rules.rampStart, 4 * F));
    // Successes prove calls too (a fast upstream ends its calls before they are a step old).
    assert.equal(callsLimit(rules, { ...ramping, successes: 12 }, T0 + 3 * τ).limit, 12 * F);
  });

  test('the ramp says when it lets one more call go, and ends unbounded within a few seconds', () => {
    const ramping = apply(fresh(), rampStart(rules, fresh(), T0));
    const { grows } = callsLimit(rules, ramping, T0, { inFlight: 16, proven: 0, nextProof: T0 });
    // 17 calls = start × F^(t/τ): t = τ × log_F(17/start), and not before the first call's proof at τ.
    const logF = (x: number) => Math.log(x) / Math.log(rules.rampFactor);
    const byTime = T0 + Math.ceil(rules.rampStepMs * logF(17 / rules.rampStart));
    assert.equal(grows, Math.max(byTime, T0 + rules.rampStepMs));
    const young = T0 + 2000 - rules.rampStepMs / 2;
    const proof = callsLimit(rules, ramping, T0 + 2000, { inFlight: 8, proven: 1, nextProof: young });
    assert.equal(proof.grows, young + rules.rampStepMs, 'the next young call proves itself');
    const steps = Math.ceil(logF(rules.rampEnd / rules.rampStart));
    assert.ok(steps * rules.rampStepMs <= 3000, 'full width within seconds');
    const wide = { inFlight: rules.rampEnd / 2, proven: rules.rampEnd / 2, nextProof: undefined };
    assert.equal(
      callsLimit(rules, ramping, T0 + steps * rules.rampStepMs, wide).limit,
      Number.POSITIVE_INFINITY,
    );
  });
});

describe('refusals', () => {
  test('a refusal marked as a limit on time holds the pool and keeps the limit on calls at once', () => {
    const row = { ...fresh(), learned_limit: 8, refused_at: T0 - 100 };
    assert.equal(refusalKind(true, 5), 'time');
    const patch = afterRefusal(rules, row, T0, {
      kind: 'time',
      others: 5,
      retryAfterMs: 30_000,
      configured: false,
    });
    assert.equal(patch.hold_until, T0 + 30_000);
    assert.equal(patch.learned_limit, undefined);
    assert.equal(patch.refused_at, undefined, 'a time refusal does not renew the learned limit');
  });

  test('an unmarked refusal with nothing else in flight is on time too; with calls in flight, on calls at once', () => {
    assert.equal(refusalKind(undefined, 0), 'time');
    assert.equal(refusalKind(false, 3), 'calls');
  });

  test('a refusal on calls at once during the ramp sets the limit to the calls in flight, without a hold', () => {
    const ramping = apply(fresh(), rampStart(rules, fresh(), T0));
    const at = T0 + rules.rampStepMs; // the ramp allows more than 4
    const patch = afterRefusal(rules, ramping, at, {
      kind: 'calls',
      others: 4,
      retryAfterMs: 1000,
      configured: false,
    });
    assert.equal(patch.learned_limit, 4);
    assert.equal(patch.ramp_since, 0);
    assert.equal(patch.hold_until, undefined);
    assert.equal(callsLimit(rules, apply(ramping, patch), at + 1).limit, 4);
  });

  test('within one episode the limit falls at most to half of where it began', () => {
    let row: LearningState = { ...fresh(), learned_limit: 16, refused_at: T0 - 5000 };
    row = apply(
      row,
      afterRefusal(rules, row, T0, { kind: 'calls', others: 3, retryAfterMs: 0, configured: false }),
    );
    assert.equal(row.learned_limit, 8);
    row = apply(
      row,
      afterRefusal(rules, row, T0 + 10, { kind: 'calls', others: 1, retryAfterMs: 0, configured: false }),
    );
    assert.equal(row.learned_limit, 8, 'the same episode keeps its floor');
    row = apply(
      row,
      afterRefusal(rules, row, T0 + 10 + rules.episodeMs, {
        kind: 'calls',
        others: 1,
        retryAfterMs: 0,
        configured: false,
      }),
    );
    assert.equal(row.learned_limit, 4, 'a later episode may halve again');
  });

  test('a limit set in the catalog is never lowered: refusals only hold', () => {
    const row = { ...fresh(), learned_limit: null };
    const patch = afterRefusal(rules, row, T0, {
      kind: 'calls',
      others: 3,
      retryAfterMs: 500,
      configured: true,
    });
    assert.deepEqual(patch, { hold_until: T0 + 500, successes: 0 });
  });
});

describe('recovery', () => {
  test('successes add one call at once per successesPerIncrease of them', () => {
    let row: LearningState = { ...fresh(), learned_limit: 4, refused_at: T0 };
    for (let i = 0; i < successesPerIncrease(4); i++) row = apply(row, afterSuccess(row, undefined));
    assert.equal(row.learned_limit, 5);
    assert.equal(row.successes, 0);
    assert.equal(afterSuccess({ ...row, learned_limit: 6, successes: 99 }, 6)?.learned_limit, 6, 'capped');
  });

  test('a limit not refused for forgetMs is forgotten: the pool ramps from it, full width within a minute of the episode', () => {
    const row = { ...fresh(), learned_limit: 1, refused_at: T0 };
    assert.equal(callsLimit(rules, row, T0 + rules.forgetMs - 1).limit, 1);
    assert.equal(callsLimit(rules, row, T0 + rules.forgetMs).limit, 1);
    const one = { inFlight: 1, proven: 1, nextProof: undefined };
    assert.equal(callsLimit(rules, row, T0 + rules.forgetMs + rules.rampStepMs, one).limit, rules.rampFactor);
    const steps = Math.ceil(Math.log(rules.rampEnd) / Math.log(rules.rampFactor));
    assert.ok(rules.forgetMs + steps * rules.rampStepMs <= 60_000);
    const wide = { inFlight: rules.rampEnd / 2, proven: rules.rampEnd / 2, nextProof: undefined };
    assert.equal(
      callsLimit(rules, row, T0 + rules.forgetMs + steps * rules.rampStepMs, wide).limit,
      Number.POSITIVE_INFINITY,
    );
  });

  test('a refusal while forgetting learns again from the calls in flight, and the next ramp starts from the old limit', () => {
    const row = { ...fresh(), learned_limit: 4, refused_at: T0 };
    const at = T0 + rules.forgetMs + rules.rampStepMs / 2; // the forgotten limit's ramp allows 4 × F^(1/2)
    const allowed = Math.floor(4 * rules.rampFactor ** 0.5);
    assert.ok(allowed > 4);
    assert.equal(callsLimit(rules, row, at, { inFlight: 4, proven: 4, nextProof: undefined }).limit, allowed);
    const relearned = apply(
      row,
      afterRefusal(rules, row, at, { kind: 'calls', others: 4, retryAfterMs: undefined, configured: false }),
    );
    assert.equal(relearned.learned_limit, 4);
    assert.equal(relearned.burst_floor, 1, 'no floor from a ramp: its reach is a probe, not a limit taken');
    assert.equal(callsLimit(rules, relearned, at + 1).limit, 4);
    assert.equal(rampStart(rules, { ...row, learned_limit: 40 }, at).ramp_base, 40);
  });
});

describe('pace by the request budget the headers report', () => {
  // 120 per minute: 2 per second.
  const budget = (remaining: number, resetMs: number) =>
    apply(fresh(), afterQuota(fresh(), { limit: 120, remaining, resetMs }, T0));

  test('the budget left goes first (less a reserve of one for calls on their way), then one call per refill', () => {
    const row = budget(4, 60_000);
    assert.deepEqual(quotaRoom(rules, row, 0, T0), { free: 3, retryAt: undefined });
    assert.deepEqual(quotaRoom(rules, row, 3, T0), { free: 0, retryAt: T0 + 500 });
    assert.equal(quotaRoom(rules, row, 3, T0 + 500).free, 1);
    assert.equal(quotaRoom(rules, row, 4, T0 + 1000).free, 1);
  });

  test('the refill stops where the budget is whole (left + refill until its reset)', () => {
    const row = budget(2, 1000); // whole at 4, less the reserve
    assert.equal(quotaRoom(rules, row, 0, T0 + 30_000).free, 3);
  });

  test('an older answer read after a newer one is ignored; a budget long past its reset is unbounded', () => {
    const row = budget(2, 1000);
    assert.equal(afterQuota(row, { limit: 120, remaining: 100, resetMs: 0 }, T0 - 5), undefined);
    assert.equal(quotaRoom(rules, row, 50, T0 + 1000 + rules.windowMs + 1).free, Number.POSITIVE_INFINITY);
    assert.equal(quotaRoom(rules, fresh(), 50, T0).free, Number.POSITIVE_INFINITY);
  });

  test('a success that states no budget clears the one kept (the limit was lifted)', () => {
    const row = apply(budget(0, 60_000), afterQuota(budget(0, 60_000), undefined, T0 + 10));
    assert.equal(quotaRoom(rules, row, 50, T0 + 10).free, Number.POSITIVE_INFINITY);
    assert.equal(afterQuota(fresh(), undefined, T0), undefined);
  });
});
