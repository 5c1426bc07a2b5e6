import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProviderFailure } from './provider.js';
import { durationMs, geminiTimeLimit, openAIQuota, openAIRefusal } from './rate-limits.js';

const refused: ProviderFailure = { kind: 'failed', message: 'x', retryable: true, cause: 'rate_limited' };

test('durations as OpenAI writes its resets', () => {
  assert.equal(durationMs('12ms'), 12);
  assert.equal(durationMs('1s'), 1000);
  assert.equal(durationMs('6m0s'), 360_000);
  assert.equal(durationMs('1h2m3.5s'), 3_723_500);
  assert.equal(durationMs('2.5'), 2500);
  assert.equal(durationMs('soon'), undefined);
  assert.equal(durationMs('1s later'), undefined);
  assert.equal(durationMs(null), undefined);
});

test("OpenAI's request budget is read from any answer's headers; -1 (no limit) is none", () => {
  const headers = new Headers({
    'x-ratelimit-limit-requests': '60',
    'x-ratelimit-remaining-requests': '59',
    'x-ratelimit-reset-requests': '1s',
  });
  assert.deepEqual(openAIQuota(headers), { limit: 60, remaining: 59, resetMs: 1000 });
  assert.equal(openAIQuota(new Headers()), undefined);
  const none = new Headers({
    'x-ratelimit-limit-requests': '-1',
    'x-ratelimit-remaining-requests': '-1',
    'x-ratelimit-reset-requests': '0',
  });
  assert.equal(openAIQuota(none), undefined);
});

test('an OpenAI 429 with a spent budget is a limit on time, waiting for the reset when no Retry-After came', () => {
  const spentRequests = new Headers({
    'x-ratelimit-limit-requests': '120',
    'x-ratelimit-remaining-requests': '0',
    'x-ratelimit-reset-requests': '500ms',
  });
  const taught = openAIRefusal(spentRequests, refused);
  assert.equal(taught.timeLimit, true);
  assert.equal(taught.retryAfterMs, 500);
  assert.deepEqual(taught.quota, { limit: 120, remaining: 0, resetMs: 500 });
  assert.equal(openAIRefusal(spentRequests, { ...refused, retryAfterMs: 2000 }).retryAfterMs, 2000);

  const spentTokens = new Headers({
    'x-ratelimit-limit-requests': '120',
    'x-ratelimit-remaining-requests': '80',
    'x-ratelimit-reset-requests': '20s',
    'x-ratelimit-limit-tokens': '40000',
    'x-ratelimit-remaining-tokens': '0',
    'x-ratelimit-reset-tokens': '6m0s',
  });
  assert.equal(openAIRefusal(spentTokens, refused).timeLimit, true);
  assert.equal(openAIRefusal(spentTokens, refused).retryAfterMs, 360_000);

  // Budget left: the refusal is about something else (calls at once behind a gateway).
  const left = new Headers({
    'x-ratelimit-limit-requests': '120',
    'x-ratelimit-remaining-requests': '80',
    'x-ratelimit-reset-requests': '20s',
  });
  assert.equal(openAIRefusal(left, refused).timeLimit, undefined);
  assert.equal(openAIRefusal(new Headers(), refused).timeLimit, undefined);
});

test("Gemini's QuotaFailure (per minute, per day) and ErrorInfo quota_limit mark a limit on time; RetryInfo alone does not", () => {
  const quotaFailure = [
    {
      '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
      violations: [
        {
          quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
          quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
          quotaValue: '10',
        },
      ],
    },
    { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '26s' },
  ];
  assert.equal(geminiTimeLimit(quotaFailure), true);
  const errorInfo = [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'RATE_LIMIT_EXCEEDED',
      metadata: { quota_limit: 'GenerateContentRequestsPerMinutePerProjectPerRegion' },
    },
  ];
  assert.equal(geminiTimeLimit(errorInfo), true);
  assert.equal(
    geminiTimeLimit([{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }]),
    false,
  );
  assert.equal(geminiTimeLimit(undefined), false);
});
