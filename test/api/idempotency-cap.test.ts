import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, bearer } from '../support/api-helpers.js';
import { compareWithIdle, floodUntilRefused } from '../support/latency.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

const DAY_S = 24 * 60 * 60;

describe('Idempotency-Key records are capped per account; refusals are not kept (issue 25, item 13)', () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp({ startEngine: false, env: { ATELIER_IDEMPOTENCY_KEYS_PER_ACCOUNT: '3' } });
  });
  after(() => t?.close());

  const generate = (apiKey: string, key: string | undefined, prompt = 'a kept answer') =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: { ...bearer(apiKey), ...(key === undefined ? {} : { 'idempotency-key': key }) },
      payload: { prompt, imageSize: '1K' },
    });
  const recordsOf = async (accountId: string) =>
    (
      await t.core.resources.db
        .selectFrom('idempotency_keys')
        .select('key')
        .where('account_id', '=', accountId)
        .execute()
    )
      .map((row) => row.key)
      .sort();

  test('at the cap a new key is 429 with Retry-After; replays, key-less requests and other accounts still work', async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    // Refusals are not kept, so they spend nothing of the cap.
    for (let i = 0; i < 5; i++) assertError(await generate(a.apiKey, `bad-${i}`, ''), 400, 'invalid_request');
    assert.deepEqual(await recordsOf(a.id), []);
    for (const key of ['k1', 'k2', 'k3']) assert.equal((await generate(a.apiKey, key)).statusCode, 200);
    const refused = await generate(a.apiKey, 'k4');
    assertError(refused, 429, 'too_many_requests');
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter > DAY_S - 60 && retryAfter <= DAY_S + 3600, `Retry-After ${retryAfter}`);
    assert.deepEqual(await recordsOf(a.id), ['k1', 'k2', 'k3'], 'the refused key was not kept');

    const replay = await generate(a.apiKey, 'k2');
    assert.equal(replay.statusCode, 200);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal((await generate(a.apiKey, undefined)).statusCode, 200, 'no key, no record');
    assert.equal((await generate(b.apiKey, 'k4')).statusCode, 200, 'another account has its own cap');

    // Records past their day free their places.
    await t.core.resources.db
      .updateTable('idempotency_keys')
      .set({ created_at: Date.now() - 26 * 60 * 60 * 1000 })
      .where('account_id', '=', a.id)
      .execute();
    await t.core.resources.db
      .updateTable('idempotency_usage')
      .set({ hour: Math.floor((Date.now() - 26 * 60 * 60 * 1000) / 3_600_000) * 3_600_000 })
      .where('account_id', '=', a.id)
      .execute();
    await t.core.idempotency.purgeExpired();
    assert.equal((await generate(a.apiKey, 'k4')).statusCode, 200);
  });

  test('concurrent claims never get past the cap', async () => {
    const c = await t.createAccount();
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => generate(c.apiKey, `c${i}`)));
    const codes = answers.map((answer) => answer.statusCode).sort();
    assert.deepEqual(codes, [200, 200, 200, 429, 429, 429, 429, 429]);
    assert.equal((await recordsOf(c.id)).length, 3);
  });
});

describe('an account at its idempotency cap leaves the others fast (issue 25, item 13, measured)', () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp({ startEngine: false, env: { ATELIER_IDEMPOTENCY_KEYS_PER_ACCOUNT: '100' } });
  });
  after(() => t?.close());

  test("another account's keyed generate stays within a small factor of idle", async () => {
    const flooder = await t.createAccount();
    // One measuring account per trial: its own keys count against the same cap (100).
    const others = await Promise.all([0, 1, 2].map(() => t.createAccount()));
    let n = 0;
    const keyed = (apiKey: string) => () =>
      t.app
        .inject({
          method: 'POST',
          url: '/api/v1/generate',
          headers: { ...bearer(apiKey), 'idempotency-key': `key-${n++}` },
          payload: { prompt: 'measured', imageSize: '1K' },
        })
        .then((answer) => answer.statusCode);
    // One client sending keyed generates as fast as it is answered, from its cap on.
    const trials = await compareWithIdle({
      label: "other account's keyed generate, flooder at its cap",
      request: async (trial) => {
        assert.equal(await keyed(others[trial]?.apiKey ?? '')(), 200);
      },
      samples: 20,
      warmUp: 20,
      factor: 20,
      startLoad: () => floodUntilRefused(keyed(flooder.apiKey)),
    });
    const statuses = trials.flatMap((trial) => trial.load);
    assert.equal(statuses.filter((status) => status === 200).length, 100, 'the cap holds');
  });
});
