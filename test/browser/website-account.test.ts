import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { screenshot, serve, settled, until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

/**
 * End to end, continued from website.test.ts (same setup, a browser of its own): the account page
 * (upstream key, API key, webhook signing secret), a forged request from another site, the phone
 * width, signing out. Screenshots in test-results/website/.
 */
describe('website account and security (Chromium, end to end)', () => {
  const site = websiteSession();
  const { api, goTo, signIn } = site;
  let server: typeof site.server;
  let context: BrowserContext;
  let page: Page;
  let evil: Awaited<ReturnType<typeof serve>>;

  before(async () => {
    ({ server, context, page } = site);
    // A page on another origin of the same host (same site for SameSite: only the Origin check stands in the way).
    evil = await serve({
      '/csrf.html': {
        type: 'text/html',
        body: `<!doctype html><title>evil</title><script>
          fetch('${server.baseUrl}/web/api/generate', { method: 'POST', mode: 'no-cors', credentials: 'include',
            headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ prompt: 'forged by another site' }) });
          fetch('${server.baseUrl}/api/v1/generate', { method: 'POST', mode: 'no-cors', credentials: 'include',
            headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ prompt: 'forged by another site' }) });
        </script>`,
      },
    });
    await page.goto('/works');
    await signIn();
    await page.getByRole('heading', { name: 'Saved works' }).waitFor();
  });

  after(async () => {
    await evil?.close();
  });

  test('set an upstream key (never shown back)', async () => {
    await goTo('Account', '/account');
    await page.getByRole('heading', { name: 'Upstream key' }).waitFor();
    assert.match((await page.locator('main').textContent()) ?? '', /Not needed here/);
    await screenshot(page, '10-account');
    await page.getByLabel('Provider').selectOption('gemini');
    await page.getByLabel('Key', { exact: true }).fill('gm-test-key-123456');
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.getByRole('status').filter({ hasText: 'key saved' }).waitFor();
    await page.reload();
    await page.getByLabel('Provider').selectOption('gemini');
    assert.match((await page.getByLabel('Provider').textContent()) ?? '', /Google Gemini — your key is set/);
    assert.equal(await page.getByLabel('Replace key').inputValue(), '');
    assert.ok(!(await page.content()).includes('gm-test-key-123456'));
  });

  test('rotate the API key: shown once with a copy button; the old one is refused', async () => {
    await page.getByRole('button', { name: 'Rotate default key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the default API key?' });
    // The password is asked again: a stolen session alone cannot mint a key.
    await dialog.getByLabel('Your password').fill('not my password');
    await dialog.getByRole('button', { name: 'Rotate key' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'Password is incorrect' }).waitFor();
    await dialog.getByLabel('Your password').fill(server.password);
    await dialog.getByRole('button', { name: 'Rotate key' }).click();
    const field = page.getByLabel('Your new API key — shown once');
    await field.waitFor();
    const newKey = await field.inputValue();
    assert.match(newKey, /^atl_/);
    await page.getByRole('button', { name: 'Copy key' }).waitFor();
    assert.match(
      (await page.locator('main').textContent()) ?? '',
      new RegExp(`${server.baseUrl.replace(/[.:/]/g, '\\$&')}/api/v1/generate`),
    );
    await screenshot(page, '11-account-new-key');
    const old = await api('/api/v1/user/status');
    assert.equal(old.status, 401);
    assert.equal(((await old.json()) as { error: { type: string } }).error.type, 'invalid_api_key');
    assert.equal((await api('/api/v1/user/status', {}, newKey)).status, 200);
    site.apiKey = newKey;
  });

  test('the account page shows the webhook signing secret (the one the API returns)', async () => {
    await page.getByRole('button', { name: 'Show signing secret' }).click();
    const field = page.getByLabel('Signing secret');
    await field.waitFor();
    const shown = await field.inputValue();
    assert.match(shown, /^whsec_/);
    const fromApi = ((await (await api('/api/v1/user/webhook-secret')).json()) as { secret: string }).secret;
    assert.equal(shown, fromApi);
    await screenshot(page, '11b-account-webhooks');
  });

  test('the account page rotates the webhook signing secret after a confirmation (issue 25, item 15)', async () => {
    const field = page.getByLabel('Signing secret');
    const old = await field.inputValue();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('status').filter({ hasText: 'signature with the old one until' }).waitFor();
    const shown = await field.inputValue();
    assert.match(shown, /^whsec_/);
    assert.notEqual(shown, old);
    const fromApi = ((await (await api('/api/v1/user/webhook-secret')).json()) as { secret: string }).secret;
    assert.equal(shown, fromApi);
  });

  test('a state-changing request from another origin is refused, even with the cookie', async () => {
    const before = ((await (await api('/api/v1/history')).json()) as { total: number }).total;
    const attacker = await context.newPage();
    const answers: number[] = [];
    attacker.on('response', (response) => {
      if (response.url().startsWith(server.baseUrl)) answers.push(response.status());
    });
    await attacker.goto(`${evil.origin}/csrf.html`);
    await until('both forged requests answered', () => answers.length === 2);
    assert.deepEqual(answers, [403, 403]);
    await attacker.close();
    const afterwards = ((await (await api('/api/v1/history')).json()) as { total: number }).total;
    assert.equal(afterwards, before, 'nothing was created');
  });

  test('phone width: no sideways scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [label, path, name] of [
      ['Create', '/', '12-phone-create'],
      ['Saved works', '/works', '13-phone-works'],
      ['Library', '/library', '14-phone-library'],
      ['Account', '/account', '15-phone-account'],
    ] as const) {
      await goTo(label, path);
      await page.locator('h1').first().waitFor();
      await settled(page); // the page's images and transitions in place before its width is measured
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${path} scrolls sideways by ${overflow}px`);
      await screenshot(page, name);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test('sign out', async () => {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const status = await page.evaluate(async () => (await fetch('/api/v1/user/status')).status);
    assert.equal(status, 401, 'the session is over on the server too');
  });

  testNoConsoleErrors(site);
});
