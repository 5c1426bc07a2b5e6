import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { axeViolationsIn, generateAndWait } from './lightbox-support.js';
import { screenshot, until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

const WIDE = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
const FIRST = 'a red kite over green hills';
const BATCH = 'two paper boats on a pond';
const ALL_ACTIONS = [
  'Upscale ×2',
  'Upscale ×4',
  'Vary (subtle)',
  'Vary (strong)',
  'Expand',
  'Remove background',
  'Reroll',
];

/**
 * Issue 45 in the website: the lightbox's actions on the image shown — each one key press, each the
 * work's next version in the strip (pending until it completes) — at 1440 then 390 px (a bottom bar,
 * 44 px targets); Create's batch card's U1/V1 buttons; a Saved works card's menu; an action whose
 * route the catalog lacks is not offered. One app, the scenarios in turn; axe finds nothing.
 */
describe('website actions on an image (Chromium, end to end)', () => {
  const site = websiteSession(() => ({ ATELIER_LOCAL_LATENCY_MS: '50' }));
  const { api, goTo, signIn } = site;
  let page: Page;
  before(() => {
    page = site.page;
  });
  const lightbox = () => page.locator('dialog.lightbox');
  /** The first work's image on Create: the oldest card (its versions' cards carry its prompt too). */
  const firstImage = () => page.getByRole('button', { name: `Open image: ${FIRST}` }).last();
  const strip = () => lightbox().locator('nav.versions button.version');
  const actionButtons = () =>
    lightbox()
      .locator('.image-actions button')
      .evaluateAll((buttons) => buttons.map((b) => b.textContent?.replace(/\s*\S+$/, '').trim()));
  /** The shown image's natural size, once loaded. */
  const shownSize = async () => {
    const size = await until('the shown image loaded', () =>
      lightbox()
        .locator('img.lightbox-image')
        .evaluate((img: HTMLImageElement) =>
          img.complete && img.naturalWidth > 0 ? { w: img.naturalWidth, h: img.naturalHeight } : undefined,
        ),
    );
    assert.ok(size);
    return size;
  };
  const current = () =>
    lightbox().locator('nav.versions button.version[aria-current="true"]').getAttribute('title');

  /** Presses `key` (the lightbox open): the strip gains a version, pending first, then shown as `label`. */
  async function act(key: string, label: RegExp) {
    const before = await strip().count();
    await page.keyboard.press(key);
    await lightbox().locator('.version-pending').waitFor();
    await until(
      `a new version named ${label}`,
      async () => {
        const count = await strip().count();
        return count === Math.max(2, before + 1) && label.test((await current()) ?? '');
      },
      30_000,
    );
    assert.equal(await lightbox().locator('.version-pending').count(), 0, 'no longer pending');
    const name = await current();
    await until(
      'the new version shown',
      async () => (await lightbox().locator('img.lightbox-image').getAttribute('alt')) === name,
    );
    return shownSize();
  }

  test('sign in and make a work', async () => {
    await page.goto('/');
    await signIn();
    await page.getByRole('heading', { name: 'Create' }).waitFor();
    await generateAndWait(api, FIRST, { aspect: '4:3' });
  });

  test('1440: U upscales ×2, B removes the background, X expands, Y varies — each the next version', async () => {
    await page.setViewportSize(WIDE);
    await goTo('Create', '/');
    const open = firstImage();
    await open.locator('img').waitFor();
    await open.click();
    await lightbox().waitFor();
    await until('the actions', async () => (await actionButtons()).length === ALL_ACTIONS.length);
    assert.deepEqual(await actionButtons(), ALL_ACTIONS);
    const original = await shownSize();

    const upscaled = await act('u', /^Version 2: Upscaled ×2$/);
    assert.deepEqual(upscaled, { w: original.w * 2, h: original.h * 2 }, '×2 the pixels a side');
    const details = lightbox().locator('.lightbox-details');
    await until('the details name the action', async () =>
      /Upscaled ×2 from/.test((await details.getByTestId('detail-action').textContent()) ?? ''),
    );
    assert.match((await details.getByTestId('detail-seed').textContent()) ?? '', /^\d+$/);

    await act('b', /^Version 3: Background removed$/);
    const transparent = await lightbox()
      .locator('img.lightbox-image')
      .evaluate((img: HTMLImageElement) => {
        const canvas = document.createElement('canvas');
        canvas.width = img.naturalWidth;
        canvas.height = img.naturalHeight;
        const context = canvas.getContext('2d');
        context?.drawImage(img, 0, 0);
        const data = context?.getImageData(0, 0, canvas.width, canvas.height).data ?? [];
        let clear = 0;
        for (let i = 3; i < data.length; i += 4) if ((data[i] ?? 255) < 255) clear++;
        return { clear, src: img.currentSrc };
      });
    assert.ok(transparent.clear > 0, 'the removed background is transparent');

    const expanded = await act('x', /^Version 4: Expanded ×1\.5$/);
    assert.ok(expanded.w > upscaled.w * 1.4 && expanded.h > upscaled.h * 1.4, 'the canvas grew ×1.5');
    const varied = await act('y', /^Version 5: Varied \(subtle\)$/);
    assert.deepEqual(varied, expanded, 'a variation keeps the size');

    // The server holds the chain: each names its parent and its action.
    const fifth = await strip().nth(4).getAttribute('data-version-id');
    const chain = (await (await api(`/api/v1/history/${fifth}/versions`)).json()) as {
      versions: Array<{ id: string; parentId?: string; action?: string | null }>;
    };
    assert.deepEqual(
      chain.versions.map((v) => v.action ?? null),
      [null, 'upscale', 'remove_background', 'expand', 'vary'],
    );
    assert.deepEqual(await axeViolationsIn(page, 'dialog.lightbox'), [], 'axe, the lightbox at 1440');
    await screenshot(page, 'actions-1440');

    // `?` lists every action's key.
    await page.keyboard.press('?');
    const list = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    for (const key of ['U', 'Shift+U', 'Y', 'Shift+Y', 'X', 'B', 'Shift+R'])
      await list.locator('kbd', { hasText: new RegExp(`^${key.replace('+', '\\+')}$`) }).waitFor();
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await until('the lightbox closed', async () => (await lightbox().count()) === 0);
  });

  test('390: the actions are a bar along the bottom edge, 44 px targets; a tap rerolls', async () => {
    await page.setViewportSize(PHONE);
    const open = firstImage();
    await open.click();
    await lightbox().waitFor();
    await until('the actions', async () => (await actionButtons()).length === ALL_ACTIONS.length);
    const bar = await lightbox()
      .locator('.image-actions')
      .evaluate((element) => {
        const box = element.getBoundingClientRect();
        const buttons = [...element.querySelectorAll('button')].map((b) => b.getBoundingClientRect());
        return {
          bottom: box.bottom,
          left: box.left,
          right: box.right,
          smallest: Math.min(...buttons.map((b) => Math.min(b.width, b.height))),
        };
      });
    assert.equal(Math.round(bar.bottom), PHONE.height, 'on the bottom edge');
    assert.deepEqual([bar.left, bar.right], [0, PHONE.width], 'the full width');
    assert.ok(bar.smallest >= 44, `targets of 44 px at least (${bar.smallest})`);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), PHONE.width);
    // The first work's chain, read before the tap: itself and the four versions made at 1440.
    await until('the strip of five', async () => (await strip().count()) === 5);
    await lightbox()
      .getByRole('button', { name: /^Reroll/ })
      .click();
    await until('the reroll’s version', async () => (await strip().count()) === 6, 30_000);
    await until('it is shown', async () => /Rerolled$/.test((await current()) ?? ''));
    assert.deepEqual(await axeViolationsIn(page, 'dialog.lightbox'), [], 'axe, the lightbox at 390');
    await screenshot(page, 'actions-390');
    await page.keyboard.press('Escape');
    await until('the lightbox closed', async () => (await lightbox().count()) === 0);
  });

  test('Create: a batch card of two offers U1 V1 U2 V2 over its images; U2 upscales the second image', async () => {
    await page.setViewportSize(WIDE);
    await generateAndWait(api, BATCH, { count: 2 });
    const listed = page.locator('article.batch-card', { hasText: BATCH }).first();
    await listed.getByRole('button', { name: /^U2:/ }).waitFor();
    // Its own card, however many cards the actions add above it.
    const id = await listed.getAttribute('data-task-id');
    const card = page.locator(`article.batch-card[data-task-id="${id}"]`);
    const labels = await card
      .locator('.image-action-row button')
      .evaluateAll((buttons) => buttons.map((b) => b.textContent));
    // Over each image, its own pair (they add nothing to the card's height: Create packs by it).
    assert.deepEqual(labels, ['U1', 'V1', 'U2', 'V2']);
    const cards = await page.locator('article.task-card').count();
    await card.getByRole('button', { name: 'U2: Upscale ×2, image 2' }).click();
    await card.getByRole('status').filter({ hasText: 'Upscaling ×2' }).waitFor();
    await until(
      'its card shows in Create',
      async () => (await page.locator('article.task-card').count()) > cards,
    );
    const history = (await (await api('/api/v1/history?limit=5')).json()) as {
      items: Array<{ action?: string | null; actionOptions?: { scale?: number } | null }>;
    };
    assert.equal(history.items[0]?.action, 'upscale');
    assert.equal(history.items[0]?.actionOptions?.scale, 2);
  });

  test('Saved works: a card’s New version menu varies the work (strong)', async () => {
    await goTo('Saved works', '/works');
    const card = page.locator('article.work-card', { hasText: BATCH }).first();
    await card.getByText('New version', { exact: true }).click();
    await card.getByRole('button', { name: 'Vary (strong)' }).click();
    await card.getByRole('status').filter({ hasText: 'strong variation' }).waitFor();
    await until('the variation recorded', async () => {
      const history = (await (await api('/api/v1/history?limit=1')).json()) as {
        items: Array<{ action?: string | null; actionOptions?: { strength?: string } | null }>;
      };
      return history.items[0]?.action === 'vary' && history.items[0]?.actionOptions?.strength === 'strong';
    });
    await card.getByText('New version', { exact: true }).click();
    assert.deepEqual(await axeViolationsIn(page, 'main'), [], 'axe, Saved works with the menu');
    await card.getByRole('button', { name: 'Expand' }).focus();
    await page.keyboard.press('Escape');
    assert.equal(await card.locator('details').evaluate((d: HTMLDetailsElement) => d.open), false);
    assert.equal(
      await page.evaluate(() => document.activeElement?.tagName),
      'SUMMARY',
      'Esc closes the menu, focus on its summary',
    );
  });

  test('an action whose route leaves the catalog is not offered (no button, no key, not under ?)', async () => {
    const core = site.server.testApp.core;
    await core.accounts.setOperator((await core.accounts.requireByEmail(site.server.email)).id, true);
    const status = await page.evaluate(async () => {
      const read = await fetch('/api/admin/v1/catalog');
      const catalog = (await read.json()) as { version: number; document: { models: Array<{ id: string }> } };
      const models = catalog.document.models.filter((m) => m.id !== 'remove-background');
      const put = await fetch('/api/admin/v1/catalog', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          expected_version: catalog.version,
          document: { ...catalog.document, models },
        }),
      });
      return put.status;
    });
    assert.equal(status, 200);
    const models = (await (await api('/api/v1/models')).json()) as { actions: Array<{ action: string }> };
    assert.ok(!models.actions.some((a) => a.action === 'remove_background'));

    await page.goto('/');
    const open = firstImage();
    await open.locator('img').waitFor();
    await open.click();
    await lightbox().waitFor();
    await until('the actions', async () => (await actionButtons()).length === ALL_ACTIONS.length - 1);
    assert.deepEqual(
      await actionButtons(),
      ALL_ACTIONS.filter((a) => a !== 'Remove background'),
    );
    await until('the strip of six', async () => (await strip().count()) === 6);
    await page.keyboard.press('b');
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(await lightbox().locator('.version-pending').count(), 0, 'B does nothing');
    assert.equal(await strip().count(), 6);
    await page.keyboard.press('?');
    const list = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await list.locator('kbd', { hasText: /^U$/ }).waitFor();
    assert.equal(await list.locator('kbd', { hasText: /^B$/ }).count(), 0, 'B is not listed');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
  });

  testNoConsoleErrors(site);
});
