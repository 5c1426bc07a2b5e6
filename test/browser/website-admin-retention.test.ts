import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { expectNoAxeViolations } from './axe.js';
import { screenshot, until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

/** The standard tier (the signed-in account's) keeps results 60 days; the deployment keeps both 90 days. */
const POLICIES = { tiers: { standard: { retention_results_days: 60 } } };

/**
 * Issue 47: an account's retention in the operator console. The account's page shows the results
 * and uploads retention in force and where each comes from (the shortest of deployment, tier and
 * account); the operator sets the account's own (PUT .../retention), and the page shows the new
 * one in force; an out-of-range value is refused before anything is sent. At 1440 and 390 px,
 * axe-clean.
 */
describe('account retention in the operator console (Chromium)', () => {
  let dir: string;
  let file: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'atelier-admin-retention-'));
    file = join(dir, 'policy.json');
    await writeFile(file, JSON.stringify(POLICIES));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const site = websiteSession(() => ({
    ATELIER_POLICY_FILE: file,
    ATELIER_RETENTION_RESULTS_DAYS: '90',
    ATELIER_RETENTION_UPLOADS_DAYS: '90',
  }));
  let accountId = '';

  before(async () => {
    const core = site.server.testApp.core;
    accountId = (await core.accounts.requireByEmail(site.server.email)).id;
    await core.accounts.setOperator(accountId, true);
  });

  const inForce = () => site.page.getByRole('list', { name: 'Retention in force' });
  const panel = () => site.page.getByRole('region', { name: 'Retention' });

  test('at 1440 px: the retention in force and its source; the account’s own set, shorter, wins', async () => {
    const { page } = site;
    await page.setViewportSize({ width: 1440, height: 1000 });
    await page.goto('/');
    await site.signIn();
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Admin', exact: true })
      .waitFor({ timeout: 60_000 });
    await page.goto(`/admin/accounts/${encodeURIComponent(accountId)}`);
    await inForce().waitFor();
    await until('the retention in force', async () => {
      const text = await inForce().innerText();
      return (
        /Results: 60 days, from the tier policy/.test(text) &&
        /Uploads: 90 days, from the deployment/.test(text)
      );
    });
    await expectNoAxeViolations(page, 'admin account retention');

    // Out of range: refused in the page, nothing sent.
    await panel().getByLabel('Results retention (days)').fill('0');
    await panel().getByRole('button', { name: 'Save retention' }).click();
    await panel().getByRole('alert').filter({ hasText: 'from 1 to 36500' }).waitFor();
    const untouched = await site.server.testApp.core.lifecycle.accountRetention.get(accountId);
    assert.deepEqual(untouched, { resultsDays: null, uploadsDays: null });

    await panel().getByLabel('Results retention (days)').fill('7');
    await panel().getByLabel('Uploads retention (days)').fill('120');
    await panel().getByRole('button', { name: 'Save retention' }).click();
    await panel().getByRole('status').filter({ hasText: 'Retention saved' }).waitFor();
    await until('the new retention in force', async () => {
      const text = await inForce().innerText();
      return (
        /Results: 7 days, from this account’s own setting/.test(text) &&
        /Uploads: 90 days, from the deployment/.test(text)
      );
    });
    assert.match(await inForce().innerText(), /account 7 days · tier 60 days · deployment 90 days/);
    const saved = await site.server.testApp.core.lifecycle.accountRetention.get(accountId);
    assert.deepEqual(saved, { resultsDays: 7, uploadsDays: 120 });
    // The header is translucent: what scrolled under it changes its links' contrast; read from the top.
    await page.evaluate(() => window.scrollTo(0, 0));
    await expectNoAxeViolations(page, 'admin account retention, saved');
    await screenshot(page, 'admin-retention-1440');
  });

  test('at 390 px: the panel reads, and an emptied field removes the account’s own', async () => {
    const { page } = site;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await inForce().waitFor();
    await expectNoAxeViolations(page, 'admin account retention at 390 px');
    await panel().getByLabel('Results retention (days)').fill('');
    await panel().getByRole('button', { name: 'Save retention' }).click();
    await until('the tier’s retention in force again', async () =>
      /Results: 60 days, from the tier policy/.test(await inForce().innerText()),
    );
    const saved = await site.server.testApp.core.lifecycle.accountRetention.get(accountId);
    assert.deepEqual(saved, { resultsDays: null, uploadsDays: 120 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await expectNoAxeViolations(page, 'admin account retention at 390 px, saved');
    await screenshot(page, 'admin-retention-390');
  });

  testNoConsoleErrors(site);
});
