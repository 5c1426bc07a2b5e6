import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dayOf } from '../../src/capabilities/usage/usage-days.js';
import { usageCommand } from '../../src/edges/cli/usage-command.js';
import { assertError, bearer, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

type Counts = { completed: number; failed: number };

describe('usage per account: GET /api/v1/user/usage and atelier usage', () => {
  let t: TestApp;
  let apiKey: string;
  let email: string;
  let otherKey: string;
  /** What the tasks' final states say, per model. */
  const expected = new Map<string, Counts>();

  const usage = (query = '', key = apiKey) =>
    t.app.inject({ method: 'GET', url: `/api/v1/user/usage${query}`, headers: bearer(key) });

  before(async () => {
    t = await createTestApp();
    ({ apiKey, email } = await t.createAccount(undefined, { tier: 'starter' }));
    ({ apiKey: otherKey } = await t.createAccount());
    const requests = [
      { prompt: 'three of them', model: 'base-image-2', count: 3 },
      { prompt: 'this one fails [[fail]]', model: 'pro', count: 2 },
      { prompt: 'one flash', model: 'flash' },
      { prompt: 'canceled at once', model: 'flash' },
    ];
    for (const body of requests) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/generate',
        headers: bearer(apiKey),
        payload: { imageSize: '1K', ...body },
      });
      assert.equal(response.statusCode, 200, response.body);
      const ids = response.json().task_ids as string[];
      if (body.prompt.startsWith('canceled'))
        await t.app.inject({
          method: 'POST',
          url: `/api/v1/tasks/${ids[0]}/cancel`,
          headers: bearer(apiKey),
        });
      for (const id of ids) {
        const { final } = await pollUntilFinal(t.app, apiKey, id);
        const counts = expected.get(body.model) ?? { completed: 0, failed: 0 };
        counts[final.status === 'completed' ? 'completed' : 'failed'] += 1;
        expected.set(body.model, counts);
      }
    }
  });
  after(() => t.close());

  test("the figures equal the tasks' final states, per model, today; other accounts see none of them", async () => {
    const response = await usage();
    assert.equal(response.statusCode, 200, response.body);
    const report = response.json();
    const today = dayOf(Date.now());
    assert.equal(report.to, today);
    assert.equal(report.days.length, 30, 'the 30 days ending today by default');
    assert.equal(report.days.at(-1).date, today);
    const models = Object.fromEntries(
      report.models.map((m: Counts & { model: string }) => [
        m.model,
        { completed: m.completed, failed: m.failed },
      ]),
    );
    assert.deepEqual(models, Object.fromEntries(expected));
    const all = [...expected.values()];
    assert.equal(
      report.totals.completed,
      all.reduce((s, c) => s + c.completed, 0),
    );
    assert.equal(
      report.totals.failed,
      all.reduce((s, c) => s + c.failed, 0),
    );
    assert.equal(report.totals.failed >= 2, true, 'the [[fail]] images');
    assert.deepEqual(report.days.at(-1).models, report.models);
    assert.equal(report.allowance, null, 'no policy by default');
    assert.equal(report.totals.cost_micros, 0, 'the local renderer costs nothing');
    assert.equal(report.currency, 'USD');
    assert.equal(report.budgets, null, 'no budget by default');

    const other = (await usage('', otherKey)).json();
    assert.deepEqual(other.totals, { completed: 0, failed: 0, cost_micros: 0 });
    assert.deepEqual(other.models, []);
  });

  test('a range of days: every day listed, zeros included; a range in the past is empty', async () => {
    const report = (await usage('?from=2024-02-27&to=2024-03-01')).json();
    assert.deepEqual(
      report.days.map((d: { date: string }) => d.date),
      ['2024-02-27', '2024-02-28', '2024-02-29', '2024-03-01'],
    );
    assert.deepEqual(report.totals, { completed: 0, failed: 0, cost_micros: 0 });
  });

  test('bad ranges are 400 invalid_request, naming the field', async () => {
    assert.match(assertError(await usage('?from=2026-13-01'), 400, 'invalid_request'), /from/);
    assert.match(assertError(await usage('?to=yesterday'), 400, 'invalid_request'), /to/);
    assert.match(assertError(await usage('?from=2026-03-02&to=2026-03-01'), 400, 'invalid_request'), /after/);
    assert.match(assertError(await usage('?from=2024-01-01&to=2025-12-31'), 400, 'invalid_request'), /366/);
    assertError(await t.app.inject({ method: 'GET', url: '/api/v1/user/usage' }), 401, 'unauthorized');
  });

  test('a task ends once: a second final write, or a cancel after the end, counts nothing', async () => {
    const before = (await usage()).json().totals;
    const accountId = (await t.core.accounts.requireByEmail(email)).id;
    const rows = await t.core.tasks.listPendingForAccount(accountId, { since: 0, limit: 50 });
    assert.equal(rows.length, 7);
    for (const row of rows) {
      assert.equal(await t.core.tasks.cancelUnfinished(row.task_id, 'Canceled'), false);
      assert.equal(await t.core.tasks.updateLeased(row.task_id, 'someone', { status: 'failed' }), false);
    }
    assert.deepEqual((await usage()).json().totals, before);
  });

  test('atelier usage --json: one account per day and model, and every account', async () => {
    const lines: string[] = [];
    await usageCommand(t.core, ['--email', email, '--json'], (line) => lines.push(line));
    assert.equal(lines.length, 1);
    const one = JSON.parse(lines[0] ?? '');
    const api = (await usage()).json();
    // The operator's view: the account's report with absorbed_micros beside every cost_micros.
    const withoutAbsorbed = (value: unknown) =>
      JSON.parse(JSON.stringify(value, (key, inner) => (key === 'absorbed_micros' ? undefined : inner)));
    assert.equal(one.totals.absorbed_micros, 0);
    assert.deepEqual(withoutAbsorbed(one), { email, tier: 'starter', ...api });

    lines.length = 0;
    await usageCommand(t.core, ['--json', '--from', api.from], (line) => lines.push(line));
    const all = JSON.parse(lines[0] ?? '');
    assert.equal(all.accounts[0].absorbed_micros, 0);
    assert.deepEqual(withoutAbsorbed(all), {
      from: api.from,
      to: api.to,
      accounts: [{ email, tier: 'starter', ...api.totals, models: api.models }],
    });
  });
});
