import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { expectNoAxeViolations } from './axe.js';
import { screenshot, until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

const GIVEN = 'handed over by the operator';
const OWN = 'a password of my own';

/**
 * After an operator's reset, signing in leads to "Choose a new password" before anything else;
 * setting one continues where the person was going. After a reload the screen asks for the
 * password they were given, since the tab no longer holds it.
 */
describe('choose a new password after an operator reset (Chromium)', () => {
  const site = websiteSession();
  const reset = async (password: string) => {
    const { core } = site.server.testApp;
    await core.accounts.resetPassword((await core.accounts.requireByEmail(site.server.email)).id, password);
  };
  const sessionState = (page: Page) =>
    page.evaluate(async () => (await fetch('/web/api/session', { credentials: 'same-origin' })).json());
  const signInWith = async (page: Page, password: string) => {
    await page.getByLabel('Email').fill(site.server.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  const choose = async (page: Page, next: string, repeat = next) => {
    await page.getByLabel('New password', { exact: true }).fill(next);
    await page.getByLabel('New password again').fill(repeat);
    await page.getByRole('button', { name: 'Set password and continue' }).click();
  };

  test('signing in with the given password shows only the screen; a new one continues to the page', async () => {
    const { page } = site;
    await reset(GIVEN);
    await page.goto('/works');
    await signInWith(page, GIVEN);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await until('the title', async () => (await page.title()) === 'Choose a new password · Atelier');
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).count(), 0, 'no navigation meanwhile');
    assert.equal(await page.getByLabel('Password you were given').count(), 0, 'the tab holds it');
    assert.equal((await sessionState(page)).passwordChangeRequired, true);
    await expectNoAxeViolations(page, 'choose a new password');
    await screenshot(page, 'choose-password');

    await choose(page, OWN, 'something else entirely');
    await page.getByRole('alert').filter({ hasText: 'repetition differ' }).waitFor();
    await choose(page, GIVEN);
    await page.getByRole('alert').filter({ hasText: 'other than the one you were given' }).waitFor();
    await choose(page, OWN);
    await page.getByRole('heading', { name: 'Saved works' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/works');
    assert.equal((await sessionState(page)).passwordChangeRequired, false);
    const account = await page.evaluate(async () => (await fetch('/web/api/account')).status);
    assert.equal(account, 200);
  });

  test('after a reload the screen asks for the given password too', async () => {
    const context = await site.browser.newContext({ baseURL: site.server.baseUrl });
    try {
      const page = await context.newPage();
      await reset(GIVEN);
      await page.goto('/');
      await signInWith(page, GIVEN);
      await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
      await page.reload();
      await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
      await page.getByLabel('Password you were given').fill(GIVEN);
      await choose(page, 'yet another password');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Create' }).waitFor();
      assert.equal((await sessionState(page)).passwordChangeRequired, false);
    } finally {
      await context.close();
    }
  });

  testNoConsoleErrors(site);
});
