import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { insertTask } from '../admin/task-log-seed.js';
import { expectNoAxeViolations } from './axe.js';
import { screenshot, until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

const ROUTE = 'openai/gpt-image-1';
const POOL = `${ROUTE}/0123456789abcdef`;
const OPERATOR_CANCELED = 'Canceled by an operator';

/**
 * Issue 43: the console's Queue page. Tasks of two accounts parked on a pool held by a refusal, and
 * one waiting to retry on the local renderer, written as the engine leaves them (never due during
 * the test); the page's numbers and reasons at 1440 px and 390 px (dark), axe clean; an account's
 * cancel and a route's, each with a confirmation that says how many tasks it takes (declined once),
 * and one task's by its id; the Upstreams page points at the Queue.
 */
describe("the operator console's queue (Chromium)", () => {
  const site = websiteSession();
  const ids: Record<string, string[]> = { alice: [], bob: [], local: [] };
  let alice: { id: string; email: string };
  let bob: { id: string; email: string };

  before(async () => {
    const core = site.server.testApp.core;
    await core.accounts.setOperator((await core.accounts.requireByEmail(site.server.email)).id, true);
    const made = async (email: string) => (await core.accounts.create({ email })).account;
    alice = await made(`alice-${Date.now()}@queue.test`);
    bob = await made(`bob-${Date.now()}@queue.test`);
    const db = core.resources.db;
    const now = Date.now();
    const parked = { waiting_for: 'upstream_capacity' as const, capacity_pool: POOL, waiting_since: now };
    const seed = async (who: { id: string; email: string }, label: string, n: number, local = false) => {
      for (let i = 0; i < n; i++) {
        const id = `tsk_queue_${label}_${i}`;
        ids[label]?.push(id);
        await insertTask(
          db,
          {
            id,
            accountId: who.id,
            email: who.email,
            keyId: null,
            model: local ? 'base-image-2' : 'gpt-image',
            provider: local ? 'local' : 'openai',
            upstreamModel: local ? 'local-v1' : 'gpt-image-1',
            status: 'queued',
            error: null,
            createdAt: now - 60_000 + i,
          },
          local ? {} : parked,
        );
      }
    };
    await seed(alice, 'alice', 5);
    await seed(bob, 'bob', 2);
    await seed(alice, 'local', 1, true);
    await db
      .insertInto('upstream_pools')
      .values({
        pool: POOL,
        provider: 'openai',
        upstream_model: 'gpt-image-1',
        key_hash: '0123456789abcdef',
        learned_limit: 2,
        refused_at: now,
        hold_until: now + 600_000,
        updated_at: now,
      } as never)
      .execute();
  });

  const card = (page: Page, route: string) => page.locator(`section[data-route="${route}"]`);
  const errorOf = async (taskId: string, accountId: string) => {
    const row = await site.server.testApp.core.tasks.findForAccount(accountId, taskId);
    return row?.error ?? null;
  };

  test('at 1440 px: the numbers and reasons; an account and a route canceled after a confirmation', async () => {
    const { page } = site;
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto('/');
    await site.signIn();
    const main = page.getByRole('navigation', { name: 'Main' });
    await main.getByRole('link', { name: 'Admin', exact: true }).waitFor({ timeout: 60_000 });
    await site.goTo('Admin', '/admin');
    // The Upstreams page says tasks wait, and where to look.
    const admin = page.getByRole('navigation', { name: 'Admin' });
    await admin.getByRole('link', { name: 'Upstreams' }).click();
    await page.getByText(/8 tasks are queued/).waitFor();
    await page.getByRole('link', { name: /see where they wait and why in the Queue/ }).click();
    await page.getByRole('heading', { name: 'Queue', exact: true }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/admin/queue');

    const openai = card(page, ROUTE);
    await openai.waitFor();
    assert.match(await openai.innerText(), /7\s+waiting: 7 for a slot, 0 for a turn, 0 to retry/);
    assert.match(await openai.innerText(), /refused upstream \(Retry-After\)/i);
    assert.match(await openai.innerText(), /learned 2/);
    assert.match(
      await card(page, 'local/local-v1').innerText(),
      /1\s+waiting: 0 for a slot, 0 for a turn, 1 to retry/,
    );
    const accounts = openai.getByRole('table', { name: `Accounts on ${ROUTE}` });
    assert.match(
      await accounts.getByRole('row', { name: new RegExp(alice.email) }).innerText(),
      /5\s+0\s+71%\s+5/,
    );
    assert.match(
      await accounts.getByRole('row', { name: new RegExp(bob.email) }).innerText(),
      /2\s+0\s+29%\s+2/,
    );
    await expectNoAxeViolations(page, 'admin queue');
    await screenshot(page, 'admin-queue');

    // Bob's queued tasks: the confirmation says how many, and on which routes.
    await openai.getByRole('button', { name: `Cancel queued tasks of ${bob.email}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: `Cancel 2 tasks of ${bob.email}?` }).waitFor();
    await expectNoAxeViolations(page, 'admin queue, confirmation');
    await dialog.getByRole('button', { name: 'Cancel 2 tasks' }).click();
    await page.getByText('2 tasks canceled.').waitFor();
    await until('Bob gone from the route', async () => !(await accounts.innerText()).includes(bob.email));
    for (const id of ids.bob ?? []) assert.equal(await errorOf(id, bob.id), OPERATOR_CANCELED);

    // The route's: declined first (nothing happens), then confirmed.
    await openai.getByRole('button', { name: 'Cancel its queued tasks' }).click();
    await dialog.getByRole('heading', { name: `Cancel 5 tasks on ${ROUTE}?` }).waitFor();
    await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await errorOf(ids.alice?.[0] ?? '', alice.id), null);
    await openai.getByRole('button', { name: 'Cancel its queued tasks' }).click();
    await dialog.getByRole('button', { name: 'Cancel 5 tasks' }).click();
    await page.getByText('5 tasks canceled.').waitFor();
    await until('the route has none waiting', async () => /\b0\s+waiting/.test(await openai.innerText()));
    for (const id of ids.alice ?? []) assert.equal(await errorOf(id, alice.id), OPERATOR_CANCELED);
  });

  test('at 390 px in the dark theme: axe clean, and one task canceled by its id', async () => {
    const context = await site.browser.newContext({
      baseURL: site.server.baseUrl,
      viewport: { width: 390, height: 844 },
      colorScheme: 'dark',
    });
    try {
      const page = await context.newPage();
      await page.goto('/admin/queue');
      await page.getByLabel('Email').fill(site.server.email);
      await page.getByLabel('Password').fill(site.server.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await card(page, 'local/local-v1').waitFor();
      await expectNoAxeViolations(page, 'admin queue, 390 px, dark');
      const task = ids.local?.[0] ?? '';
      await page.getByLabel('Task id').fill(task);
      await page.getByRole('button', { name: 'Cancel task' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('heading', { name: 'Cancel 1 task?' }).waitFor();
      assert.match(await dialog.innerText(), new RegExp(task));
      await expectNoAxeViolations(page, 'admin queue confirmation, 390 px, dark');
      await dialog.getByRole('button', { name: 'Cancel task' }).click();
      await page.getByText('1 task canceled.').waitFor();
      assert.equal(await errorOf(task, alice.id), OPERATOR_CANCELED);
      await screenshot(page, 'admin-queue-390-dark');
    } finally {
      await context.close();
    }
  });

  testNoConsoleErrors(site);
});
