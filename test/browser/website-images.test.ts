import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { distortedImages } from './image-ratios.js';
import { screenshot, until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
] as const;

/**
 * Issue 30, defects 1 and 2, in Chromium at 1440×900 and 390×844: no displayed image is stretched
 * or cropped (Create's cards and references, Saved works' cards and its lightbox, fitted and at 100 %, the
 * Library), and
 * the Library's "Use as reference" shows its whole text on a phone.
 */
describe('website images keep their ratio (Chromium, end to end)', () => {
  const site = websiteSession(() => ({ ATELIER_LOCAL_LATENCY_MS: '200' }));
  const { api, goTo, signIn } = site;
  let page: Page;
  before(() => {
    page = site.page;
  });

  const generate = async (prompt: string, aspect: string, count = 1) => {
    const answer = await api('/api/v1/generate', {
      method: 'POST',
      body: JSON.stringify({ prompt, aspect, imageSize: '1K', count }),
    });
    assert.equal(answer.status, 200, await answer.clone().text());
    for (const taskId of ((await answer.json()) as { task_ids: string[] }).task_ids) {
      for (;;) {
        const record = (await (await api(`/api/v1/tasks/${taskId}?wait=30`)).json()) as { status: string };
        if (record.status === 'completed') break;
        assert.notEqual(record.status, 'failed');
      }
    }
  };
  /** Waits until every image in the page (dialogs included) that the browser started has loaded. */
  const settle = () =>
    until('the images in view to load', () =>
      page.evaluate(() =>
        ([...document.querySelectorAll('img')] as HTMLImageElement[])
          .filter((img) => img.getClientRects().length > 0)
          .filter((img) => img.getBoundingClientRect().top < window.innerHeight)
          .every((img) => img.complete && img.naturalWidth > 0),
      ),
    );
  /** The distorted images seen at one width, by page: asserted empty once every page was seen. */
  let seen: Record<string, unknown[]> = {};
  const checkImages = async (where: string) => {
    await settle();
    const shown = await page.evaluate(
      () =>
        ([...document.querySelectorAll('img')] as HTMLImageElement[]).filter(
          (img) => img.complete && img.naturalWidth > 0 && img.getClientRects().length > 0,
        ).length,
    );
    assert.ok(shown > 0, `${where}: images shown`);
    const distorted = await distortedImages(page);
    if (distorted.length > 0) seen[where] = distorted;
  };

  test('sign in; works in four ratios (one of two images), and an upload of 5:2', async () => {
    await page.goto('/');
    await signIn();
    await page.getByRole('heading', { name: 'Create' }).waitFor();
    await generate('a wide harbour at dusk', '16:9');
    await generate('a tall lighthouse', '9:16');
    await generate('a square courtyard', '1:1', 2);
    await generate('a classic four by three room', '4:3');
    const banner = await sharp({ create: { width: 500, height: 200, channels: 3, background: '#3a6' } })
      .png()
      .toBuffer();
    await page
      .getByTestId('reference-file')
      .setInputFiles({ name: 'banner.png', mimeType: 'image/png', buffer: banner });
    await page.getByRole('img', { name: 'Reference: banner.png' }).waitFor();
  });

  for (const viewport of VIEWPORTS) {
    test(`at ${viewport.width}×${viewport.height}: Create, Saved works (and its lightbox), Library`, async () => {
      await page.setViewportSize(viewport);
      seen = {};
      await goTo('Create', '/');
      await site.card('a wide harbour at dusk').locator('img').waitFor();
      await checkImages('Create');

      await goTo('Saved works', '/works');
      await page.locator('.work-card img').first().waitFor();
      await checkImages('Saved works');
      for (const prompt of ['a wide harbour at dusk', 'a tall lighthouse', 'a square courtyard']) {
        await page.getByRole('button', { name: `Open: ${prompt}` }).click();
        const lightbox = page.locator('dialog.lightbox');
        await lightbox.locator('img.lightbox-image').waitFor();
        await checkImages(`the lightbox of "${prompt}"`);
        if (prompt === 'a wide harbour at dusk') await screenshot(page, `images-lightbox-${viewport.width}`);
        // At 100 % too: the image at its natural size, whatever part of it the stage shows.
        await page.keyboard.press('z');
        await lightbox.locator('[data-zoom="100"]').waitFor();
        await checkImages(`the lightbox of "${prompt}" at 100 %`);
        await page.keyboard.press('Escape');
        await lightbox.waitFor({ state: 'detached' });
      }

      await goTo('Library', '/library');
      await page.locator('.asset-card img').first().waitFor();
      await checkImages('Library');
      await screenshot(page, `images-library-${viewport.width}`);
      assert.deepEqual(seen, {}, 'every image at its natural ratio');
    });
  }

  test('at 390 px, every "Use as reference" in the Library shows its whole text', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await goTo('Library', '/library');
    await page.locator('.asset-card').first().waitFor();
    const buttons = await page.locator('.asset-actions .button').evaluateAll((elements) =>
      elements.map((button) => {
        const text = button.textContent ?? '';
        // The text's own extent, line by line: each must lie inside the button's box.
        const range = document.createRange();
        range.selectNodeContents(button);
        const box = button.getBoundingClientRect();
        const inside = [...range.getClientRects()].every(
          (line) => line.left >= box.left - 0.5 && line.right <= box.right + 0.5,
        );
        return {
          text,
          fits: button.scrollWidth <= button.clientWidth && inside,
          overflow: getComputedStyle(button).textOverflow,
        };
      }),
    );
    assert.ok(buttons.length >= 5, `library cards: ${buttons.length}`);
    for (const button of buttons) {
      assert.equal(button.text, 'Use as reference');
      assert.ok(button.fits, `cut: ${JSON.stringify(button)}`);
      assert.notEqual(button.overflow, 'ellipsis');
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  testNoConsoleErrors(site);
});
