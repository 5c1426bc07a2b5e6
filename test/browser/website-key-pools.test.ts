import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { expectNoAxeViolations } from './axe.js';
import { screenshot, until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

const SECRETS = ['sk-console-org-a-0000000001', 'sk-console-org-b-0000000002', 'AIza-console-proj-0003'];
const TYPED = 'sk-typed-in-the-console-0004';

/**
 * Issue 39: the operator console shows every key of every upstream pool (several providers, a
 * project, a key taken out with its reason), adds one from its form and disables one, and no key
 * is ever on the page after it was set.
 */
describe('upstream key pools in the operator console (Chromium)', () => {
  const site = websiteSession(() => ({ ATELIER_OPENAI_API_KEY: 'sk-console-env-key-000005' }));

  before(async () => {
    const core = site.server.testApp.core;
    await core.accounts.setOperator((await core.accounts.requireByEmail(site.server.email)).id, true);
    const keys = core.keyPools.store;
    await keys.add('openai', 'org-a', SECRETS[0] as string, { weight: 3, maxInFlight: 2 });
    await keys.add('openai', 'org-b', SECRETS[1] as string);
    const taken = await keys.add('gemini', 'proj-x-1', SECRETS[2] as string, { project: 'proj-x' });
    const now = Date.now();
    const out = { reason: 'invalid_key' as const, message: 'API key not valid', rechecks: 0, now };
    await keys.takeOut(taken.id, { ...out, recheckAt: now + 3_600_000 }, true);
  });

  test('every key of every pool, with its status; one added and one disabled from the page', async () => {
    const { page } = site;
    await page.goto('/');
    await site.signIn();
    // The first page of a fresh server can be slow on a busy machine: wait for the signed-in nav.
    const main = page.getByRole('navigation', { name: 'Main' });
    await main.getByRole('link', { name: 'Admin', exact: true }).waitFor({ timeout: 60_000 });
    await site.goTo('Admin', '/admin');
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Upstreams' }).click();
    await page.getByRole('heading', { name: 'Upstream keys' }).waitFor();
    const row = (key: string) => page.locator(`tr[data-key="${key}"]`);
    for (const key of ['openai/env', 'openai/org-a', 'openai/org-b', 'gemini/proj-x-1'])
      await row(key).waitFor();
    assert.match(await row('gemini/proj-x-1').innerText(), /out: invalid key[\s\S]*proj-x/i);
    assert.match(await row('openai/org-a').innerText(), /in service\s+3\s+—\s+2/i);
    await expectNoAxeViolations(page, 'admin upstream keys');

    await page.getByLabel('Provider', { exact: true }).fill('replicate');
    await page.getByLabel('Name', { exact: true }).fill('team-r');
    await page.getByLabel('Key (never shown again)').fill(TYPED);
    await page.getByRole('button', { name: 'Add key' }).click();
    await row('replicate/team-r').waitFor();
    await row('openai/org-b').getByRole('button', { name: 'Disable' }).click();
    await until('org-b disabled', async () => /disabled/i.test(await row('openai/org-b').innerText()));
    assert.equal(await page.getByLabel('Key (never shown again)').inputValue(), '');
    const html = await page.content();
    for (const secret of [...SECRETS, TYPED]) assert.ok(!html.includes(secret), 'a key is on the page');
    await screenshot(page, 'admin-upstream-keys');
  });

  testNoConsoleErrors(site);
});
