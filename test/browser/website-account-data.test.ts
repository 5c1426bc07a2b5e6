import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

/**
 * The account page's "Your data" (issue 47): the download of every work and upload, and the erase
 * that asks for the e-mail typed again and the password.
 */
describe('website account data: export and erase (Chromium)', () => {
  const site = websiteSession();
  const { api, signIn } = site;

  test('download all my works and uploads, then erase the account', async () => {
    const { page, server } = site;
    const made = await api('/api/v1/generate', {
      method: 'POST',
      body: JSON.stringify({ prompt: 'a lone pine' }),
    });
    assert.equal(made.status, 200);
    await page.goto('/account');
    await signIn();
    await page.getByRole('heading', { name: 'Your data' }).waitFor();

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download all my works and uploads (ZIP)' }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^atelier-export-acc_.+\.zip$/);
    assert.equal(await download.failure(), null);

    await page.getByRole('button', { name: 'Erase my account…' }).click();
    const form = page.getByRole('form', { name: 'Erase my account' });
    await form.getByLabel(`Type ${server.email} to confirm`).fill('someone@else.test');
    await form.getByLabel('Your password').fill(server.password);
    await form.getByRole('button', { name: 'Erase my account' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: `Type ${server.email} to confirm` })
      .waitFor();
    await form.getByLabel(`Type ${server.email} to confirm`).fill(server.email);
    await form.getByRole('button', { name: 'Erase my account' }).click();
    await page.getByLabel('Email').waitFor();
    await until('the key to be refused', async () => (await api('/api/v1/history')).status === 401);
  });

  testNoConsoleErrors(site);
});
