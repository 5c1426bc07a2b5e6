import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { DEFAULT_CATALOG } from '../../src/capabilities/catalog/catalog.js';
import type { SeededTask } from '../admin/task-log-seed.js';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/providers/fake-openai.js';
import { pollUntilFinal } from '../support/api-helpers.js';
import { expectNoAxeViolations } from './axe.js';
import { LONG_PROMPT, seedOlderTasks } from './seed-task-log.js';
import { screenshot, until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

const OPENAI_KEY = 'sk-admin-log';
const OPENAI_MODEL = {
  id: 'openai-image',
  provider: 'openai',
  upstreamModel: 'gpt-image-1.5',
  modes: ['text'],
  price: { perImage: { '1K': 40_000 } },
};
const SAFETY = {
  kind: 'error' as const,
  status: 400,
  json: {
    error: {
      message: 'Your request was rejected by the safety system.',
      type: 'image_generation_user_error',
      param: null,
      code: 'moderation_blocked',
    },
  },
};
const RATE_LIMITED = {
  kind: 'error' as const,
  status: 429,
  headers: { 'retry-after': '1' },
  json: {
    error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' },
  },
};

/** The task ids the page shows, in order: the table's links on a wide screen, the list's on a narrow one. */
function shownIds(page: Page, layout: 'wide' | 'narrow'): Promise<string[]> {
  return page
    .locator(`.${layout}-only a[href^="/admin/tasks/"]`)
    .evaluateAll((links) =>
      links.map((link) => decodeURIComponent(link.getAttribute('href')?.split('/').pop() ?? '')),
    );
}

/** Whether the page scrolls sideways (it must not, at any width). */
const scrollsSideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

/**
 * Issue 43: the console's task log and audit log in Chromium, on one service: tasks of several
 * accounts seeded an hour and more ago (completed, failed with varied errors, a long prompt) and
 * made now through the loopback OpenAI (refused with a 429 then completed; refused by its safety
 * system) and the local renderer (completed; failed by its test marker). The log is filtered, a task
 * opened, the account followed, a filtered URL reloaded; operator changes show in Audit with their
 * before and after, and its export downloads them. Each page at 1440 and 390 px, axe clean.
 */
describe('operator console: the task log and the audit log (Chromium)', () => {
  let dir: string;
  let openai: FakeOpenAI;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'atelier-admin-log-'));
    openai = await startFakeOpenAI({ apiKey: OPENAI_KEY });
    await writeFile(
      join(dir, 'catalog.json'),
      JSON.stringify({ models: [...DEFAULT_CATALOG.models, OPENAI_MODEL] }),
    );
  });
  after(async () => {
    await openai.close();
    await rm(dir, { recursive: true, force: true });
  });
  const site = websiteSession(() => ({
    ATELIER_CATALOG: join(dir, 'catalog.json'),
    ATELIER_LOCAL_LATENCY_MS: '200',
    ATELIER_OPENAI_API_KEY: OPENAI_KEY,
    ATELIER_OPENAI_BASE_URL: openai.baseUrl,
  }));
  const ann = { email: 'ann.ops@log.test', key: '', id: '' };
  const made: Record<'refusedThenCompleted' | 'blocked' | 'completed' | 'markerFailed', string> = {
    refusedThenCompleted: '',
    blocked: '',
    completed: '',
    markerFailed: '',
  };
  let seeded: SeededTask[] = [];

  /** One generation through the API with `key`, waited for until its task is final; its task id. */
  async function generate(key: string, body: Record<string, unknown>): Promise<string> {
    const answer = await site.api('/api/v1/generate', { method: 'POST', body: JSON.stringify(body) }, key);
    assert.equal(answer.status, 200, await answer.clone().text());
    const [taskId = ''] = ((await answer.json()) as { task_ids: string[] }).task_ids;
    await pollUntilFinal(site.server.testApp.app, key, taskId);
    return taskId;
  }

  /** The ids the admin API answers for a query of the log (every page). */
  async function apiIds(query: string): Promise<string[]> {
    const ids: string[] = [];
    let cursor = '';
    do {
      const answer = await site.api(
        `/api/admin/v1/tasks?limit=100&${query}${cursor ? `&cursor=${cursor}` : ''}`,
      );
      assert.equal(answer.status, 200, await answer.clone().text());
      const page = (await answer.json()) as { tasks: Array<{ id: string }>; next_cursor: string | null };
      ids.push(...page.tasks.map((task) => task.id));
      cursor = page.next_cursor ?? '';
    } while (cursor);
    return ids;
  }

  before(async () => {
    const t = site.server.testApp;
    const operator = await t.core.accounts.requireByEmail(site.server.email);
    await t.core.accounts.setOperator(operator.id, true);
    const created = await t.createAccount(ann.email, { tier: 'trial' });
    Object.assign(ann, { key: created.apiKey, id: created.id });
    const bob = await t.createAccount('bob.ops@log.test');
    seeded = await seedOlderTasks(
      t,
      [
        { id: operator.id, email: operator.email },
        { id: ann.id, email: ann.email },
        { id: bob.id, email: bob.email },
      ],
      60,
    );
    openai.script(RATE_LIMITED, { kind: 'image' });
    made.refusedThenCompleted = await generate(ann.key, {
      prompt: 'a refused then drawn harbour',
      model: 'openai-image',
      imageSize: '1K',
    });
    made.completed = await generate(bob.apiKey, { prompt: 'a quiet local harbour' });
    made.markerFailed = await generate(bob.apiKey, { prompt: 'a harbour that fails [[fail]]' });
    openai.script(SAFETY);
    made.blocked = await generate(ann.key, {
      prompt: 'a blocked harbour',
      model: 'openai-image',
      imageSize: '1K',
    });
  });

  test('Tasks: the whole log newest first, a page at a time, axe clean at 1440 px', async () => {
    const { page } = site;
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto('/');
    await site.signIn();
    await site.goTo('Admin', '/admin');
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Tasks' }).click();
    await page.getByRole('heading', { name: 'Tasks', level: 2 }).waitFor();
    const every = await apiIds('');
    assert.equal(every.length, seeded.length + 4);
    await until('the first page', async () => (await shownIds(page, 'wide')).length === 50);
    assert.deepEqual(await shownIds(page, 'wide'), every.slice(0, 50));
    assert.equal(every[0], made.blocked, 'the newest first');
    await expectNoAxeViolations(page, 'tasks, 1440 px');
    assert.equal(await scrollsSideways(page), false);
    await page.getByRole('button', { name: 'Load more' }).click();
    await until('every task', async () => (await shownIds(page, 'wide')).length === every.length);
    assert.deepEqual(await shownIds(page, 'wide'), every);
    assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0, 'no more pages');
    // Every column is there, with the refused-then-completed task's figures.
    const row = page
      .getByRole('row')
      .filter({ has: page.locator(`a[href="/admin/tasks/${made.refusedThenCompleted}"]`) });
    const heads = await page.locator('.wide-only').getByRole('columnheader').allInnerTexts();
    const values = await row.getByRole('cell').allInnerTexts();
    const cell = Object.fromEntries(heads.map((head, i) => [head.trim(), values[i]?.trim() ?? '']));
    assert.equal(cell.Account, ann.email);
    assert.match(cell['Model / route'] ?? '', /openai-image[\s\S]*openai\/gpt-image-1\.5/);
    assert.equal(cell.Status?.toLowerCase(), 'completed');
    assert.equal(cell.Cost, '$0.04');
    assert.equal(cell.Refusals, '1', 'one refusal');
    assert.equal(cell.Error, '');
    await screenshot(page, 'admin-tasks');
  });

  test('filtered by status and error text, kept in the URL: a reload shows the same rows', async () => {
    const { page } = site;
    await page.getByLabel('Status').selectOption('failed');
    await page.getByLabel('Error contains').fill('safety system');
    await page.getByRole('button', { name: 'Filter' }).click();
    await until('the filtered URL', () => new URL(page.url()).search.includes('error=safety+system'));
    const wanted = await apiIds('status=failed&error=safety+system');
    assert.deepEqual(wanted, [made.blocked]);
    await until(
      'the filtered rows',
      async () => JSON.stringify(await shownIds(page, 'wide')) === JSON.stringify(wanted),
    );
    const url = page.url();
    assert.match(url, /status=failed/);
    await page.reload();
    await until(
      'the rows after a reload',
      async () => JSON.stringify(await shownIds(page, 'wide')) === JSON.stringify(wanted),
    );
    assert.equal(page.url(), url);
    assert.equal(
      await page.getByLabel('Error contains').inputValue(),
      'safety system',
      'the form says what is shown',
    );

    // A wider error text: the seeded timeouts, every account's, over several routes.
    await page.getByLabel('Error contains').fill('TIMEOUT');
    await page.getByRole('button', { name: 'Filter' }).click();
    const timeouts = await apiIds('status=failed&error=TIMEOUT');
    assert.ok(timeouts.length > 3 && timeouts.every((id) => id.startsWith('tsk_seed')));
    await until(
      'the timeouts',
      async () => JSON.stringify(await shownIds(page, 'wide')) === JSON.stringify(timeouts),
    );

    // Nothing found: the page says what was searched.
    await page.getByLabel('Error contains').fill('no such error anywhere');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No task matches status failed, error contains “no such error anywhere”.').waitFor();
    await expectNoAxeViolations(page, 'tasks, nothing found');
  });

  test('"Failed in the last hour" shows the failures made now, not the older ones', async () => {
    const { page } = site;
    await page.getByRole('link', { name: 'Failed in the last hour' }).click();
    const since = await until('the preset’s URL', () => new URL(page.url()).searchParams.get('since') ?? '');
    const back = Date.now() - Date.parse(since);
    assert.ok(back >= 3_600_000 && back < 3_600_000 + 300_000, `an hour back: ${since}`);
    const wanted = [made.blocked, made.markerFailed];
    await until(
      'the recent failures',
      async () => JSON.stringify(await shownIds(page, 'wide')) === JSON.stringify(wanted),
    );
  });

  test("a task's life: its upstream calls (a refusal, then the answer), storage; the account's tasks", async () => {
    const { page } = site;
    await page.goto(`/admin/tasks?account=${encodeURIComponent(ann.email)}`);
    await page.locator(`.wide-only a[href="/admin/tasks/${made.refusedThenCompleted}"]`).click();
    await page.getByRole('heading', { name: `Task ${made.refusedThenCompleted}` }).waitFor();
    const life = page.locator('ol.task-timeline');
    await life.getByText('Admitted from the API').waitFor();
    const calls = life.locator('li', { hasText: 'Upstream call' });
    assert.equal(await calls.count(), 2, await life.innerText());
    assert.match(await calls.nth(0).innerText(), /openai\/gpt-image-1\.5[\s\S]*refused \(429\)/);
    assert.match(await calls.nth(1).innerText(), /Upstream call \(retry\)[\s\S]*answered in/);
    await life.getByText('Result stored').waitFor();
    await life.getByText('Completed').waitFor();
    await expectNoAxeViolations(page, 'a task’s life, 1440 px');
    await screenshot(page, 'admin-task-life');

    // The blocked one: its error, and its one call.
    await page.goto(`/admin/tasks/${made.blocked}`);
    await page
      .getByText(/refused by the safety system/)
      .first()
      .waitFor();
    assert.equal(await page.locator('ol.task-timeline li', { hasText: 'Upstream call' }).count(), 1);
    await page.locator('ol.task-timeline li.bad', { hasText: 'Failed' }).waitFor();

    // Its account's tasks, from the task's page: the log filtered by the account.
    await page.getByRole('link', { name: 'its tasks' }).click();
    await until('the account’s log', () => new URL(page.url()).searchParams.get('account') === ann.id);
    const wanted = await apiIds(`account=${ann.id}`);
    assert.ok(wanted.includes(made.blocked) && wanted.length > 10);
    await until(
      'the account’s tasks',
      async () => JSON.stringify(await shownIds(page, 'wide')) === JSON.stringify(wanted),
    );

    // The account's page links to the same view.
    await page.goto(`/admin/accounts/${ann.id}`);
    await page.getByRole('link', { name: 'Tasks of this account' }).click();
    await until('the same view', () => new URL(page.url()).searchParams.get('account') === ann.id);
    await until(
      'its rows',
      async () => JSON.stringify(await shownIds(page, 'wide')) === JSON.stringify(wanted),
    );

    await page.goto('/admin/tasks/tsk_no_such_task');
    await page.getByText('No task tsk_no_such_task').waitFor();
    await expectNoAxeViolations(page, 'no such task');
  });

  test('operator changes made in the console show in Audit with before and after, and export', async () => {
    const { page } = site;
    await page.goto(`/admin/accounts/${ann.id}`);
    await page.getByRole('heading', { name: ann.email }).waitFor();
    await page.getByLabel('Tier', { exact: true }).selectOption('standard');
    await page.getByRole('button', { name: 'Change tier' }).click();
    await page.getByText('Tier set to standard').waitFor();
    await page.getByLabel('Daily budget (USD, UTC day)').fill('3.25');
    await page.getByRole('button', { name: 'Save budgets' }).click();
    await page.getByText('Budgets saved.').waitFor();
    await page.getByRole('button', { name: 'Generate a one-time password' }).click();
    await page.getByText('Password reset;').waitFor();
    const generated = await page.getByLabel(/Password for/).inputValue();
    assert.ok(generated.length >= 8);

    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Audit' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    const events = page.locator('li.audit-event');
    await until('three events', async () => (await events.count()) === 3);
    // Newest first: the password, the budget, the tier.
    const texts = await events.allInnerTexts();
    assert.match(texts[0] ?? '', /password\.reset[\s\S]*by .*\(console\)/);
    assert.match(texts[0] ?? '', /\[redacted\]/);
    assert.ok(!texts.join('\n').includes(generated), 'the password itself is never shown');
    assert.match(texts[1] ?? '', /budget\.set/);
    const tier = events.nth(2);
    const diff = tier.getByRole('table');
    assert.deepEqual(await diff.getByRole('row').nth(1).getByRole('cell').allInnerTexts(), [
      'trial',
      'standard',
    ]);
    assert.equal(await diff.getByRole('row').count(), 2, 'only the changed field');
    const budget = events.nth(1).getByRole('row', { name: /daily_micros/ });
    assert.deepEqual(await budget.getByRole('cell').allInnerTexts(), ['—', '$3.25']);
    await expectNoAxeViolations(page, 'audit, 1440 px');
    await screenshot(page, 'admin-audit');

    // Filtered by action, in the URL; the export downloads what the filter keeps.
    await page.getByLabel('Action').selectOption('account.update');
    await page.getByRole('button', { name: 'Filter' }).click();
    await until(
      'one event',
      async () => new URL(page.url()).search === '?action=account.update' && (await events.count()) === 1,
    );
    const link = page.getByRole('link', { name: 'Export (NDJSON)' });
    assert.equal(await link.getAttribute('href'), '/api/admin/v1/audit/export?action=account.update');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    assert.match(download.suggestedFilename(), /^atelier-audit-.*\.ndjson$/);
    const lines = (await readFile(await download.path(), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.equal(lines.length, 1);
    assert.equal(lines[0].action, 'account.update');
    assert.equal(lines[0].target_id, ann.id);
    assert.equal(lines[0].actor, site.server.email);
    assert.equal(lines[0].source, 'website');
    assert.deepEqual([lines[0].before.tier, lines[0].after.tier], ['trial', 'standard']);
  });

  test('at 390 px in the dark theme every page reads without sideways scrolling, axe clean', async () => {
    const { page } = site;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto('/admin/tasks?status=failed');
    const failed = await apiIds('status=failed');
    await until(
      'the list of failures',
      async () => JSON.stringify(await shownIds(page, 'narrow')) === JSON.stringify(failed),
    );
    assert.equal(await page.locator('.wide-only').first().isVisible(), false, 'the table is hidden');
    assert.equal(await scrollsSideways(page), false);
    await expectNoAxeViolations(page, 'tasks, 390 px');
    await screenshot(page, 'admin-tasks-390');

    const long = seeded[0] as SeededTask;
    await page.goto(`/admin/tasks/${long.id}`);
    await page.getByText(LONG_PROMPT.slice(0, 60)).waitFor();
    assert.equal(await scrollsSideways(page), false, 'a long prompt wraps');
    const moments = await page.locator('ol.task-timeline > li').allInnerTexts();
    const titles = moments.map((moment) => moment.split('\n')[1]);
    assert.deepEqual(titles, [
      'Admitted from the API',
      `Fell back from fal/flux/dev to ${long.provider}/${long.upstreamModel}`,
      'Submitted upstream',
      'Completed',
      'Webhook task.completed to https://hooks.example.test/atelier',
    ]);
    assert.match(moments[1] ?? '', /HTTP 503 from fal/);
    assert.match(moments[4] ?? '', /succeeded after 2 attempts, last answer HTTP 200/);
    await expectNoAxeViolations(page, 'a task’s life, 390 px');

    await page.goto('/admin/audit');
    await page.locator('li.audit-event').first().waitFor();
    assert.equal(await scrollsSideways(page), false);
    await expectNoAxeViolations(page, 'audit, 390 px');
    await screenshot(page, 'admin-audit-390');
  });

  testNoConsoleErrors(site);
});
