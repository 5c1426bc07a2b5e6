import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { expectNoAxeViolations } from './axe.js';
import { screenshot, settled } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

/**
 * The account page's spend confirmation (issue 46): the defaults shown (ask above $0.50 in signed-in
 * apps, not for API keys), a change saved and read back by the API's account status, a wrong amount
 * named, at 1440 and 390 px wide, axe clean.
 */
describe('website: spend confirmation on the account page (Chromium)', () => {
  const site = websiteSession();

  before(async () => {
    const { page } = site;
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto('/works');
    await site.signIn();
    await page.getByRole('heading', { name: 'Saved works' }).waitFor();
    await site.goTo('Account', '/account');
  });

  const status = async () =>
    ((await (await site.api('/api/v1/user/status')).json()) as { spend_confirmation: unknown })
      .spend_confirmation;

  test('shows the defaults, saves a change the API then reports', async () => {
    const { page } = site;
    await page.getByRole('heading', { name: 'Spend confirmation' }).waitFor();
    const amount = page.getByLabel('Ask before a call that can cost more than (USD)');
    const signedIn = page.getByLabel(/Ask in apps signed in to Atelier/);
    const keys = page.getByLabel(/Ask agents that use an API key too/);
    assert.equal(await amount.inputValue(), '0.50');
    assert.equal(await signedIn.isChecked(), true);
    assert.equal(await keys.isChecked(), false);
    await expectNoAxeViolations(page, 'the account page at 1440 px');

    await amount.fill('-1');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Enter an amount in dollars' }).waitFor();
    assert.deepEqual(await status(), { above_micros: 500_000, api_keys: false, sign_in: true });

    await amount.fill('0.25');
    await keys.check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'can cost more than $0.25' }).waitFor();
    assert.deepEqual(await status(), { above_micros: 250_000, api_keys: true, sign_in: true });
    await screenshot(page, '60-account-spend-confirmation');

    await page.reload();
    await amount.waitFor();
    assert.equal(await amount.inputValue(), '0.25');
    assert.equal(await keys.isChecked(), true);
  });

  test('phone width: no sideways scrolling, axe clean', async () => {
    const { page } = site;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('heading', { name: 'Spend confirmation' }).scrollIntoViewIfNeeded();
    await settled(page);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `/account scrolls sideways by ${overflow}px`);
    await expectNoAxeViolations(page, 'the account page at 390 px');
    await screenshot(page, '61-phone-account-spend-confirmation');
  });

  testNoConsoleErrors(site);
});
