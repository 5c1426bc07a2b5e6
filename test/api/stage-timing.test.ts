import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { enableStageTiming, STAGES } from '../../src/base/observability/stage-timing.js';
import { bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/**
 * ATELIER_STAGE_TIMING (issue 48, bench row S1): a synchronous image's answer carries a
 * `server-timing` header with the way in and every stage of the request, in order, and a total,
 * and the stages add up to no more than the total.
 */

let t: TestApp;
let apiKey: string;

before(async () => {
  // What the server's start does when ATELIER_STAGE_TIMING=1 (this file's process only).
  enableStageTiming();
  t = await createTestApp();
  ({ apiKey } = await t.createAccount());
});
after(() => t?.close());

/** `name;dur=1.23, …` → [name, ms] in order. */
const stagesOf = (header: string) =>
  header.split(',').map((part) => {
    const [name, dur] = part.trim().split(';dur=');
    return [name ?? '', Number(dur)] as const;
  });

test('a synchronous image answers its stages in order, each measured, and the total', async () => {
  for (const format of ['b64_json', 'url']) {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/images/generations',
      headers: bearer(apiKey),
      payload: { model: 'pro', prompt: 'a lighthouse at dusk', response_format: format },
    });
    assert.equal(response.statusCode, 200, response.body);
    const header = response.headers['server-timing'];
    assert.equal(typeof header, 'string');
    const stages = stagesOf(String(header));
    assert.deepEqual(
      stages.map(([name]) => name),
      ['in', ...STAGES, 'total'],
    );
    for (const [name, ms] of stages) {
      assert.ok(Number.isFinite(ms), `${name} has a duration`);
      // The wake may be marked before the final write's own caller resumes (negative); no other.
      if (name !== 'wake') assert.ok(ms >= 0, `${name} ${ms}`);
    }
    const total = stages.at(-1)?.[1] ?? 0;
    const inside = stages.slice(1, -1).reduce((sum, [, ms]) => sum + ms, 0);
    // Each stage runs from the previous mark; the total runs to the header, after the last mark.
    assert.ok(total + 0.05 >= inside, `total ${total}, stages ${inside}`);
  }
});
