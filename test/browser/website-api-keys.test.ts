import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { screenshot } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

/**
 * Issue 31, end to end in Chromium: the account page lists the API keys, creates a read-only key
 * (the key shown once, with a copy button), and revokes it after a confirmation; the key works on
 * a poll route (200), is refused on generate (403 insufficient_scope), and once revoked is 401.
 */
describe('website: several API keys (Chromium, end to end)', () => {
  const site = websiteSession();
  const { api } = site;
  let page: Page;
  let taskId: string;

  before(async () => {
    ({ page } = site);
    const generated = await api('/api/v1/generate', {
      method: 'POST',
      body: JSON.stringify({ prompt: 'a key to poll' }),
    });
    assert.equal(generated.status, 200);
    [taskId = ''] = ((await generated.json()) as { task_ids: string[] }).task_ids;
    await page.goto('/account');
    await site.signIn();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
  });

  const keysTable = () => page.getByRole('table', { name: 'Your API keys' });
  const row = (name: string) =>
    keysTable()
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name }) });

  test('the default key is listed with its scope, hint and times', async () => {
    await row('default').waitFor();
    const cells = await row('default').getByRole('cell').allTextContents();
    assert.equal(cells[0], 'Full');
    assert.equal(cells[1], `${site.apiKey.slice(0, 8)}…`);
    assert.equal(cells[4], 'Never', 'no expiry');
  });

  test('create a read-only key: shown once with a copy button, then listed', async () => {
    await page.getByRole('button', { name: 'Create API key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create an API key' });
    await dialog.getByLabel('Name').fill('Dashboard');
    await dialog.getByLabel('Scope').selectOption('read');
    await dialog.getByLabel('Expires').selectOption({ label: 'In 30 days' });
    await dialog.getByLabel('Your password').fill('not my password');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'Password is incorrect' }).waitFor();
    await dialog.getByLabel('Your password').fill(site.server.password);
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await dialog.waitFor({ state: 'detached' });

    const field = page.getByLabel('Your new API key — shown once');
    const readKey = await field.inputValue();
    assert.match(readKey, /^atl_/);
    await page.getByRole('button', { name: 'Copy key' }).waitFor();
    await row('Dashboard').waitFor();
    const cells = await row('Dashboard').getByRole('cell').allTextContents();
    assert.equal(cells[0], 'Read only');
    assert.equal(cells[1], `${readKey.slice(0, 8)}…`);
    assert.equal(cells[3], 'Never', 'not used yet');
    assert.match(cells[4] ?? '', /\d{4}/, 'an expiry date');
    await screenshot(page, '12-account-api-keys');

    // The read key polls (200) and is refused where a request would spend (403).
    const poll = await api(`/api/v1/tasks/${taskId}`, {}, readKey);
    assert.equal(poll.status, 200);
    const generate = await api(
      '/api/v1/generate',
      { method: 'POST', body: JSON.stringify({ prompt: 'no' }) },
      readKey,
    );
    assert.equal(generate.status, 403);
    assert.equal(((await generate.json()) as { error: { type: string } }).error.type, 'insufficient_scope');

    // Revoked after a confirmation; then it is 401, and the list no longer shows it.
    await row('Dashboard')
      .getByRole('button', { name: /^Revoke Dashboard/ })
      .click();
    const confirm = page.getByRole('dialog', { name: 'Revoke the key “Dashboard”?' });
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await confirm.waitFor({ state: 'detached' });
    await row('Dashboard').waitFor({ state: 'detached' });
    const refused = await api(`/api/v1/tasks/${taskId}`, {}, readKey);
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { error: { type: string } }).error.type, 'invalid_api_key');
    assert.equal((await api(`/api/v1/tasks/${taskId}`)).status, 200, 'the default key still works');
  });

  testNoConsoleErrors(site);
});
