import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DEFAULT_CATALOG } from '../../src/capabilities/catalog/catalog.js';
import { screenshot, until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

/**
 * The account page shows spend beside the counts (issue 31): the summary, each model, a spend line
 * over the daily bars, and the account's budgets. The local renderer priced by a test catalog at
 * $0.10 per 1K image.
 */
const catalogPath = join(mkdtempSync(join(tmpdir(), 'atelier-spend-')), 'catalog.json');
writeFileSync(
  catalogPath,
  JSON.stringify({
    models: DEFAULT_CATALOG.models.map((model) => ({ ...model, price: { perImage: { '1K': 100_000 } } })),
  }),
);

describe('website: spend on the account page (Chromium)', () => {
  const site = websiteSession(() => ({ ATELIER_CATALOG: catalogPath }));

  test('two images at $0.10: $0.20 in the summary, per model, the chart and the budget', async () => {
    const { api, page, server } = site;
    const created = await api('/api/v1/generate', {
      method: 'POST',
      body: JSON.stringify({ prompt: 'two priced images', imageSize: '1K', count: 2 }),
    });
    assert.equal(created.status, 200);
    const ids = ((await created.json()) as { task_ids: string[] }).task_ids;
    await until('both images completed', async () => {
      const batch = (await (await api(`/api/v1/tasks?ids=${ids.join(',')}`)).json()) as {
        tasks: Array<{ status: string }>;
      };
      return batch.tasks.every((task) => task.status === 'completed');
    });
    const account = await server.testApp.core.accounts.requireByEmail(server.email);
    await server.testApp.core.budgets.set(account.id, { dailyMicros: 5_000_000 });

    await page.goto('/works');
    await page.getByLabel('Email').fill(server.email);
    await page.getByLabel('Password').fill(server.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Saved works' }).waitFor();
    await site.goTo('Account', '/account');
    const summary = page.getByText(/images completed/);
    await summary.waitFor();
    assert.match((await summary.textContent()) ?? '', /2 images completed, 0 failed; spend \$0\.20/);
    const main = (await page.locator('main').textContent()) ?? '';
    assert.match(main, /base-image-2: 2 completed, 0 failed, \$0\.20/);
    assert.match(main, /Daily budget: \$0\.20 of \$5\.00 spent or reserved, \$4\.80 left/);
    const chart = page.getByRole('img', { name: /Images per day/ });
    assert.match((await chart.getAttribute('aria-label')) ?? '', /spend \$0\.20, dearest day \$0\.20/);
    // The spend line: one point per day, today's at the top of the chart (the dearest day).
    const points = ((await page.locator('svg.usage-chart polyline').getAttribute('points')) ?? '').split(' ');
    assert.equal(points.length, 30);
    assert.equal(Number(points.at(-1)?.split(',')[1]), 6);
    await screenshot(page, '60-account-spend');
  });

  testNoConsoleErrors(site);
});
