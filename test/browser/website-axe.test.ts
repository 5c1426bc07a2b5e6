import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { pollUntilFinal } from '../support/api-helpers.js';
import { expectNoAxeViolations } from './axe.js';
import { until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

const VIEWPORTS = [
  { name: '1440', width: 1440, height: 900 },
  { name: '390', width: 390, height: 844 },
] as const;
const SCHEMES = ['light', 'dark'] as const;

/**
 * Issue 30: axe-core finds no WCAG 2 A/AA violation (wcag2a, wcag2aa, wcag21a, wcag21aa) on any
 * page — sign-in, Create, Saved works, Library, Account — nor in the dialogs a person reaches from
 * them (the image lightbox, recent prompts, presets, the delete confirmation), at 1440 and 390 px,
 * in the light and the dark theme (prefers-color-scheme).
 */
describe('website accessibility: axe-core, every page and dialog (Chromium)', () => {
  const site = websiteSession(() => ({ ATELIER_LOCAL_LATENCY_MS: '200' }));

  before(async () => {
    // Something to show: a batch of two and a single image, finished.
    for (const [prompt, count] of [
      ['an accessible lighthouse at dusk', 2],
      ['a quiet reading room', 1],
    ] as const) {
      const answer = await site.api('/api/v1/generate', {
        method: 'POST',
        body: JSON.stringify({ prompt, imageSize: '1K', count }),
      });
      assert.equal(answer.status, 200);
      const { task_ids } = (await answer.json()) as { task_ids: string[] };
      for (const id of task_ids) await pollUntilFinal(site.server.testApp.app, site.apiKey, id);
    }
  });

  async function openAndCheck(
    page: Page,
    label: string,
    open: () => Promise<void>,
    close?: () => Promise<void>,
  ) {
    await open();
    await page.locator('dialog[open]').first().waitFor();
    await expectNoAxeViolations(page, label);
    if (close) await close();
    else await page.keyboard.press('Escape');
    await until(`${label} closed`, async () => (await page.locator('dialog[open]').count()) === 0);
  }

  for (const viewport of VIEWPORTS) {
    for (const scheme of SCHEMES) {
      test(`${viewport.name} px, ${scheme}: every page and dialog`, async () => {
        const context = await site.browser.newContext({
          baseURL: site.server.baseUrl,
          viewport: { width: viewport.width, height: viewport.height },
          colorScheme: scheme,
        });
        const at = `${viewport.name} px ${scheme}`;
        try {
          const page = await context.newPage();
          page.setDefaultTimeout(15_000);
          page.on('pageerror', (error) => site.consoleErrors.push(error.message));
          await page.goto('/');
          await page.getByRole('heading', { name: 'Sign in' }).waitFor();
          await expectNoAxeViolations(page, `sign-in, ${at}`);
          await page.getByLabel('Email').fill(site.server.email);
          await page.getByLabel('Password').fill(site.server.password);
          await page.getByRole('button', { name: 'Sign in' }).click();

          await page.getByRole('heading', { name: 'Create' }).waitFor();
          await until(
            'the images on Create',
            async () => (await page.locator('article.batch-card img').count()) >= 3,
          );
          await page.evaluate(() =>
            Promise.all([...document.images].map((img) => img.decode().catch(() => {}))),
          );
          await expectNoAxeViolations(page, `Create, ${at}`);
          if (viewport.width < 641) {
            await page.locator('.settings-summary').click();
            await expectNoAxeViolations(page, `Create with the settings unfolded, ${at}`);
          }
          await openAndCheck(page, `Create's image lightbox, ${at}`, () =>
            page.locator('article.batch-card .image-button').first().click(),
          );
          await openAndCheck(page, `recent prompts, ${at}`, async () => {
            await page.getByRole('button', { name: 'Recent prompts' }).click();
            await page
              .getByRole('button', { name: /^Use prompt:/ })
              .first()
              .waitFor();
          });
          await openAndCheck(page, `presets, ${at}`, async () => {
            await page.getByRole('button', { name: 'Presets' }).click();
            await page.getByText('No presets yet').waitFor();
          });

          await page
            .getByRole('navigation', { name: 'Main' })
            .getByRole('link', { name: 'Saved works' })
            .click();
          await page.getByRole('heading', { name: 'Saved works' }).waitFor();
          await page.locator('.work-card img').first().waitFor();
          await expectNoAxeViolations(page, `Saved works, ${at}`);
          await openAndCheck(
            page,
            `the delete confirmation, ${at}`,
            () => page.getByRole('button', { name: /^Delete: a quiet reading room/ }).click(),
            () => page.getByRole('button', { name: 'Cancel' }).click(),
          );

          await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Library' }).click();
          await page.getByRole('heading', { name: 'Library' }).waitFor();
          await page.locator('.asset-card img').first().waitFor();
          await expectNoAxeViolations(page, `Library, ${at}`);

          await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click();
          await page.getByRole('heading', { name: 'Account' }).first().waitFor();
          await page.getByText('API key').first().waitFor();
          await expectNoAxeViolations(page, `Account, ${at}`);
        } finally {
          await context.close();
        }
      });
    }
  }

  testNoConsoleErrors(site);
});
