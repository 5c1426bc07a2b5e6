import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startReceiver } from '../support/scripted-webhook-receiver.js';
import { expectNoAxeViolations } from './axe.js';
import { screenshot, until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

// Issue 43: the console's Alerts page creates a rule (its signing secret shown once), sends a test
// alert the receiver verifies with that secret, shows the delivery, changes and deletes the rule
// (after a confirmation), without accessibility violations at 1440 px and at 390 px in the dark.

const receiver = await startReceiver();
const HOOK = receiver.answer('/console-hook', 204);

describe('alerts in the operator console (Chromium)', () => {
  const site = websiteSession(() => ({ ATELIER_UPLOAD_ALLOWED_HOSTS: `127.0.0.1:${receiver.server.port}` }));
  let secret = '';
  let otherId = '';

  before(async () => {
    const core = site.server.testApp.core;
    await core.accounts.setOperator((await core.accounts.requireByEmail(site.server.email)).id, true);
    // A rule made elsewhere (the admin API) is listed with the one the page creates.
    const other = await core.alerts.create({
      kind: 'tasks.failure_rate',
      url: receiver.answer('/other', 204),
      params: { rate: 0.25, min_count: 5 },
    });
    otherId = other.id;
  });
  after(async () => {
    await receiver.server.close();
  });

  test('at 1440 px: create (secret once), test, see the delivery, change, delete', async () => {
    const { page } = site;
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto('/admin/alerts');
    await site.signIn();
    await page.getByRole('heading', { name: 'Alert rules' }).waitFor({ timeout: 60_000 });
    const rows = page.getByRole('table', { name: 'Alert rules' }).locator('tbody tr');
    await rows.first().waitFor();
    assert.match(await rows.first().innerText(), /fails above a rate[\s\S]*≥ 25% failed, at least 5/);
    await expectNoAxeViolations(page, 'admin alerts');

    await page.getByLabel('When').selectOption('budget.threshold');
    await page.getByLabel('Webhook URL').fill(HOOK);
    await page.getByLabel('Format').selectOption('slack');
    await page.getByLabel('Thresholds, % (default 80, 100)').fill('50, 90');
    await page.getByRole('button', { name: 'Create rule' }).click();
    const reveal = page.getByLabel('Signing secret of the new rule — shown once');
    await reveal.waitFor();
    secret = await reveal.inputValue();
    assert.match(secret, /^whsec_/);
    const budgetRow = page.locator('tr[data-rule="budget.threshold"]');
    assert.match(
      await budgetRow.innerText(),
      /crosses a threshold[\s\S]*Slack[\s\S]*50%, 90%[\s\S]*enabled/i,
    );
    await expectNoAxeViolations(page, 'admin alerts, a rule created');
    await screenshot(page, 'admin-alerts');

    await budgetRow.getByRole('button', { name: /^Test/ }).click();
    await until('the receiver got the test alert', async () => receiver.at('/console-hook').length === 1);
    const [received] = receiver.at('/console-hook');
    assert.ok(received);
    const body = new Webhook(secret).verify(received.body, {
      'webhook-id': String(received.headers['webhook-id']),
      'webhook-timestamp': String(received.headers['webhook-timestamp']),
      'webhook-signature': String(received.headers['webhook-signature']),
    }) as { text: string; blocks: unknown[] };
    assert.match(body.text, /test message of the budget\.threshold alert rule/);
    const deliveries = page.getByRole('table', { name: 'Recent alert deliveries' });
    await until('the delivery shows as succeeded', async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return /test\s+succeeded\s+1\s+HTTP 204/i.test(await deliveries.innerText().catch(() => ''));
    });

    await budgetRow.getByRole('button', { name: /^Edit/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Enabled').uncheck();
    await expectNoAxeViolations(page, 'admin alerts, editing a rule');
    await dialog.getByRole('button', { name: 'Save rule' }).click();
    await until('the rule is disabled', async () => /disabled/i.test(await budgetRow.innerText()));

    await budgetRow.getByRole('button', { name: /^Delete/ }).click();
    await page.getByRole('dialog').getByText('its pending deliveries are not sent').waitFor();
    await expectNoAxeViolations(page, 'admin alerts, deleting a rule');
    await page.getByRole('button', { name: 'Delete rule' }).click();
    await until('the rule is gone', async () => (await budgetRow.count()) === 0);
    await page.reload();
    await rows.first().waitFor();
    assert.ok(!(await page.content()).includes(secret), 'the secret is shown once only');
  });

  test('at 390 px in the dark theme the Alerts page has no accessibility violations', async () => {
    const context = await site.browser.newContext({
      baseURL: site.server.baseUrl,
      viewport: { width: 390, height: 844 },
      colorScheme: 'dark',
    });
    try {
      // A delivery to list (the page's own rule, and its deliveries, were deleted above).
      await site.server.testApp.core.alerts.test(otherId);
      const page = await context.newPage();
      await page.goto('/admin/alerts');
      await page.getByLabel('Email').fill(site.server.email);
      await page.getByLabel('Password').fill(site.server.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('table', { name: 'Alert rules' }).waitFor();
      await page.getByRole('table', { name: 'Recent alert deliveries' }).waitFor();
      await expectNoAxeViolations(page, 'admin alerts, 390 px, dark');
      // The tables scroll sideways inside their frames; the page itself does not.
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390);
      await screenshot(page, 'admin-alerts-390-dark');
    } finally {
      await context.close();
    }
  });

  testNoConsoleErrors(site);
});
