import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { expectNoAxeViolations } from './axe.js';
import { screenshot } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

/**
 * Issue 43: the catalog at run time in the console. An operator changes a price and adds a fallback
 * route (each confirmed), and the store's version in force has them at once; the Test button sends
 * one real request through a route and shows its image; axe finds no violation at 1440 and 390 px.
 */
describe('operator console: the catalog (Chromium)', () => {
  const site = websiteSession(() => ({ ATELIER_LOCAL_LATENCY_MS: '100' }));
  const inForce = () => site.server.testApp.core.catalog;
  const acceptDialogs = (page: Page) => page.on('dialog', (dialog) => void dialog.accept());

  test('change a price and add a fallback route through the console; press Test', async () => {
    const { page } = site;
    const core = site.server.testApp.core;
    await core.accounts.setOperator((await core.accounts.requireByEmail(site.server.email)).id, true);
    await page.setViewportSize({ width: 1440, height: 900 });
    acceptDialogs(page);
    await page.goto('/');
    await site.signIn();
    await site.goTo('Admin', '/admin');
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Catalog' }).click();
    await page.getByRole('heading', { name: 'Catalog', level: 2 }).waitFor();
    await page.getByRole('table', { name: 'Models and their routes' }).waitFor();
    await page.getByRole('heading', { name: 'Upstream keys' }).waitFor();
    await expectNoAxeViolations(page, 'admin catalog');

    const before = inForce().inForce.version;
    await page.getByLabel('Route to change').selectOption('flash:0');
    const price = page.getByRole('form', { name: 'Price per image' });
    await price.getByLabel('1K (USD)').fill('0.035');
    await price.getByRole('button', { name: 'Save price' }).click();
    await price.getByRole('status').filter({ hasText: 'is in force' }).waitFor();
    assert.equal(inForce().inForce.version, before + 1);
    assert.equal(inForce().get('flash')?.price?.perImage?.['1K'], 35_000);

    const fallback = page.getByRole('form', { name: 'Add a fallback route' });
    await fallback.getByLabel('Model', { exact: true }).selectOption('pro');
    await fallback.getByLabel('Provider').fill('local');
    await fallback.getByLabel('Upstream model').fill('local-v2');
    await fallback.getByRole('button', { name: 'Add fallback' }).click();
    await fallback.getByRole('status').filter({ hasText: 'is in force' }).waitFor();
    assert.deepEqual(
      inForce()
        .get('pro')
        ?.fallbacks.map((route) => `${route.provider}/${route.upstreamModel}`),
      ['local/local-v2'],
    );
    await page.getByRole('cell', { name: 'local/local-v2', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Test local/local-v1 of flash', exact: true }).click();
    await page.getByText(/local\/local-v1 answered in \d+ ms: image\/png, 1024×1024/).waitFor();
    await page.getByRole('img', { name: 'What local/local-v1 answered' }).waitFor();
    await expectNoAxeViolations(page, 'admin catalog, after a test');
    await screenshot(page, 'admin-catalog');

    const audit = await site.api('/api/admin/v1/audit?limit=20');
    const actions = ((await audit.json()) as { items: Array<{ action: string; source: string }> }).items;
    assert.deepEqual(
      actions.filter((event) => event.action.startsWith('catalog.')).map((e) => `${e.action}:${e.source}`),
      ['catalog.route.test:website', 'catalog.update:website', 'catalog.update:website'],
    );
  });

  test('an invalid JSON edit shows the loader’s message, and stores nothing', async () => {
    const { page } = site;
    const before = inForce().inForce.version;
    await page.getByText('Edit the whole catalog as JSON').click();
    const editor = page.getByLabel(/The catalog document/);
    await editor.fill(
      JSON.stringify({ models: [{ id: 'solo', provider: 'local', upstreamModel: 'x', modes: ['text'] }] }),
    );
    await page.getByRole('button', { name: 'Save the document' }).click();
    await page.getByRole('alert').filter({ hasText: 'the catalog must define base-image-2' }).waitFor();
    assert.equal(inForce().inForce.version, before);
  });

  test('an older version is put back as a new version', async () => {
    const { page } = site;
    const before = inForce().inForce.version;
    await page.getByRole('button', { name: 'Put back version 1' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Version 1 put back as version ${before + 1}` })
      .waitFor();
    assert.equal(inForce().inForce.version, before + 1);
    assert.equal(inForce().get('flash')?.price?.perImage?.['1K'], 0);
    assert.deepEqual(inForce().get('pro')?.fallbacks, []);
  });

  test('at 390 px in the dark theme the catalog page has no accessibility violations', async () => {
    const context = await site.browser.newContext({
      baseURL: site.server.baseUrl,
      viewport: { width: 390, height: 844 },
      colorScheme: 'dark',
    });
    try {
      const page = await context.newPage();
      await page.goto('/admin/catalog');
      await page.getByLabel('Email').fill(site.server.email);
      await page.getByLabel('Password').fill(site.server.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('table', { name: 'Models and their routes' }).waitFor();
      await expectNoAxeViolations(page, 'admin catalog, 390 px, dark');
    } finally {
      await context.close();
    }
  });

  testNoConsoleErrors(site);
});
