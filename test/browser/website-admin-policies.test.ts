import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { expectNoAxeViolations } from './axe.js';
import { screenshot, until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

const FILE_POLICIES = {
  tiers: {
    trial: { models: ['base-image-2', 'flash'], images_per_day: 5, images_per_month: 80 },
    starter: { tasks_in_flight: 2 },
  },
};

/**
 * Issue 43: the tier policies edited in the operator console. The page shows the version in force
 * and where it came from; one tier is edited through its form, with a confirmation; a value the
 * policy file would refuse is refused with the file's message; the saved limit is in force at once
 * and the history shows who changed it. At 1440 and 390 px, axe-clean.
 */
describe('tier policies in the operator console (Chromium)', () => {
  let dir: string;
  let file: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'atelier-admin-policies-'));
    file = join(dir, 'policy.json');
    await writeFile(file, JSON.stringify(FILE_POLICIES));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const site = websiteSession(() => ({ ATELIER_POLICY_FILE: file }));

  before(async () => {
    const core = site.server.testApp.core;
    await core.accounts.setOperator((await core.accounts.requireByEmail(site.server.email)).id, true);
  });

  const tierRow = (tier: string) =>
    site.page.getByRole('region', { name: 'Tiers' }).getByRole('row').filter({ hasText: tier }).first();

  /** Opens a tier's form, fills the fields given, saves and confirms. */
  async function edit(tier: string, fields: Record<string, string>) {
    const { page } = site;
    const form = page.getByRole('form', { name: `Edit the ${tier} tier` });
    if (!(await form.isVisible())) await page.getByRole('button', { name: `Edit the ${tier} tier` }).click();
    for (const [label, value] of Object.entries(fields)) await form.getByLabel(label).fill(value);
    await form.getByRole('button', { name: `Save ${tier}` }).click();
    const dialog = page.getByRole('dialog', { name: `Change the ${tier} tier?` });
    await dialog.waitFor();
    return { form, dialog };
  }

  test('at 1440 px: the version in force, one tier edited with a confirmation, a bad value refused', async () => {
    const { page } = site;
    await page.setViewportSize({ width: 1440, height: 1000 });
    await page.goto('/');
    await site.signIn();
    const main = page.getByRole('navigation', { name: 'Main' });
    await main.getByRole('link', { name: 'Admin', exact: true }).waitFor({ timeout: 60_000 });
    await site.goTo('Admin', '/admin');
    await page
      .getByRole('navigation', { name: 'Admin' })
      .getByRole('link', { name: 'Policies and budgets' })
      .click();
    await page.getByText(/Version 1 in force, from ATELIER_POLICY_FILE at a start/).waitFor();
    assert.match(await tierRow('trial').innerText(), /5\s+80\s+no limit/);
    await expectNoAxeViolations(page, 'admin policies');

    // A value the policy file would refuse: the server's message, nothing saved.
    const refused = await edit('trial', { 'Images a day (UTC)': '0' });
    assert.match(await refused.dialog.innerText(), /images per day: 5 → 0/);
    await refused.dialog.getByRole('button', { name: 'Save the change' }).click();
    await refused.form
      .getByRole('alert')
      .filter({ hasText: 'tiers.trial.images_per_day: must be a positive integer' })
      .waitFor();
    assert.equal(site.server.testApp.core.tierPolicies.current().version, 1);

    // Cancelling the confirmation saves nothing either.
    const cancelled = await edit('trial', { 'Images a day (UTC)': '3' });
    await cancelled.dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(site.server.testApp.core.tierPolicies.current().version, 1);

    const saved = await edit('trial', { 'Images a day (UTC)': '3', 'Images a month (UTC)': '' });
    assert.match(await saved.dialog.innerText(), /images per month: 80 → no limit/);
    await expectNoAxeViolations(page, 'admin policies: the confirmation');
    await saved.dialog.getByRole('button', { name: 'Save the change' }).click();
    await saved.form.getByRole('status').filter({ hasText: 'Saved as version 2' }).waitFor();
    await page.getByText(/Version 2 in force, from the console/).waitFor();
    assert.match(await tierRow('trial').innerText(), /3\s+no limit\s+no limit/);
    const history = page.getByRole('region', { name: 'Last versions' });
    assert.match(await history.innerText(), new RegExp(`2\\s+the console\\s+${site.server.email}`));
    assert.deepEqual(site.server.testApp.core.tierPolicies.current().tiers.trial, {
      models: ['base-image-2', 'flash'],
      images_per_day: 3,
    });
    await expectNoAxeViolations(page, 'admin policies: a tier edited');
    await screenshot(page, 'admin-policies-1440');
  });

  test('at 390 px: the page reads and a tier is freed of its limit (empty: no limit)', async () => {
    const { page } = site;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.getByText(/Version 2 in force/).waitFor();
    await expectNoAxeViolations(page, 'admin policies at 390 px');
    const { dialog } = await edit('starter', { 'Tasks at once': '' });
    assert.match(await dialog.innerText(), /tasks in flight: 2 → no limit/);
    await dialog.getByRole('button', { name: 'Save the change' }).click();
    await page.getByText(/Version 3 in force, from the console/).waitFor();
    await until('starter unrestricted', async () =>
      /unrestricted/i.test(await tierRow('starter').innerText()),
    );
    assert.equal(site.server.testApp.core.tierPolicies.current().tiers.starter, undefined);
    await expectNoAxeViolations(page, 'admin policies at 390 px, edited');
    await screenshot(page, 'admin-policies-390');
  });

  testNoConsoleErrors(site);
});
