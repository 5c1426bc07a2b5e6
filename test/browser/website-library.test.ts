import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { expectNoAxeViolations } from './axe.js';
import { seedCopiesOfWork } from './seed-works.js';
import { until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

const WIDE = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

/**
 * Issue 30, "Library" and a work's own link, at 1440×900 and 390×844: `/works?work=<id>` opens that
 * work whatever the first page lists (and says so when it cannot); a Library result links back to
 * its work; uploads keep their file names and can be deleted from their card and from the
 * lightbox, the work that used one as a reference keeping it; the Library loads on as it scrolls.
 */
describe('website Library and work links (Chromium, end to end)', () => {
  const site = websiteSession(() => ({ ATELIER_LOCAL_LATENCY_MS: '0' }));
  let page: Page;
  before(() => {
    page = site.page;
  });
  const lightbox = () => page.locator('dialog.lightbox');
  const shown = () => lightbox().locator('img.lightbox-image').getAttribute('alt');

  const generate = async (prompt: string, body: Record<string, unknown> = {}) => {
    const answer = await site.api('/api/v1/generate', {
      method: 'POST',
      body: JSON.stringify({ prompt, imageSize: '1K', count: 1, ...body }),
    });
    assert.equal(answer.status, 200, await answer.clone().text());
    for (const taskId of ((await answer.json()) as { task_ids: string[] }).task_ids) {
      for (;;) {
        const record = (await (await site.api(`/api/v1/tasks/${taskId}?wait=30`)).json()) as {
          status: string;
        };
        if (record.status === 'completed') break;
        assert.notEqual(record.status, 'failed');
      }
    }
  };
  /** A multipart upload under a file name (the name the Library shows). */
  const upload = async (name: string, background: string) => {
    const image = await sharp({ create: { width: 90, height: 60, channels: 3, background } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(image)], { type: 'image/png' }), name);
    const answer = await fetch(`${site.server.baseUrl}/api/v1/upload`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${site.apiKey}` },
    });
    assert.equal(answer.status, 200, await answer.clone().text());
    return ((await answer.json()) as { url: string }).url;
  };
  const historyId = async (prompt: string) => {
    const history = (await (await site.api('/api/v1/history?limit=50')).json()) as {
      items: Array<{ id: string; prompt: string }>;
    };
    return history.items.find((item) => item.prompt === prompt)?.id ?? '';
  };
  const card = (name: string) => page.locator('li.asset-card', { hasText: name });

  let reference = '';
  test('sign in; three named uploads, an edit made from one, 40 older works', async () => {
    await page.setViewportSize(WIDE);
    await page.goto('/');
    await site.signIn();
    await page.getByRole('heading', { name: 'Create' }).waitFor();
    await generate('the oldest kept work');
    await seedCopiesOfWork(site.server.testApp.core, await historyId('the oldest kept work'), 40);
    reference = await upload('cat on a mat.png', '#c83');
    await upload('dog in the rain.png', '#38c');
    await upload('owl at night.png', '#333');
    await generate('the cat, in oils', { mode: 'edit', imageUrls: [reference] });
  });

  for (const [label, size] of [
    ['1440', WIDE],
    ['390', PHONE],
  ] as const) {
    test(`${label} px: /works?work=<id> opens a work past the first page; a deleted or unknown one is said`, async () => {
      await page.setViewportSize(size);
      await page.goto('/works?work=gen_seed000039');
      await lightbox().waitFor();
      assert.equal(await shown(), 'seeded work 40');
      await until('work= left the URL', () => !page.url().includes('work='));
      await page.keyboard.press('Escape');
      await lightbox().waitFor({ state: 'detached' });
      // An old link (with the prompt's words) still opens the work.
      await page.goto('/works?q=seeded+work+3&work=gen_seed000002');
      await lightbox().waitFor();
      assert.equal(await shown(), 'seeded work 3');
      await page.keyboard.press('Escape');
      await page.goto('/works?work=gen_nothing');
      await page.getByRole('alert').filter({ hasText: 'This work cannot be opened' }).waitFor();
    });
  }

  for (const [label, size] of [
    ['1440', WIDE],
    ['390', PHONE],
  ] as const)
    test(`${label} px: a Library result links back to its work; uploads show their file names; the lightbox links by id`, async () => {
      await page.setViewportSize(size);
      await page.goto('/library');
      await card('cat on a mat.png').waitFor();
      await card('dog in the rain.png').waitFor();
      const link = page.getByRole('link', { name: 'Open the work: the cat, in oils' });
      const workId = await historyId('the cat, in oils');
      assert.equal(await link.getAttribute('href'), `/works?work=${workId}`);
      await link.click();
      await lightbox().waitFor();
      assert.equal(await shown(), 'the cat, in oils');
      const details = lightbox().getByRole('link', { name: 'Open the work in Saved works' });
      assert.equal(await details.getAttribute('href'), `/works?work=${workId}`);
      await page.keyboard.press('Escape');
    });

  for (const [label, size, name, how] of [
    ['1440', WIDE, 'cat on a mat.png', 'card'],
    ['390', PHONE, 'dog in the rain.png', 'lightbox'],
  ] as const) {
    test(`${label} px: an upload deleted from its ${how} leaves the Library; the work that used it keeps it`, async () => {
      await page.setViewportSize(size);
      await page.goto('/library?kind=upload');
      await card(name).waitFor();
      if (how === 'card') {
        await card(name)
          .getByRole('button', { name: `Delete: ${name}` })
          .click();
      } else {
        await card(name).locator('.asset-thumb').click();
        await lightbox().waitFor();
        await page.keyboard.press('Delete');
      }
      const confirm = page.getByRole('dialog', { name: 'Delete this upload?' });
      await confirm.waitFor();
      assert.ok((await confirm.textContent())?.includes('Works that used it as a reference keep it'));
      assert.equal(
        await page.evaluate(() => document.activeElement?.textContent),
        'Cancel',
        'focus on Cancel',
      );
      await expectNoAxeViolations(page, `the upload's delete confirmation at ${label}`);
      await confirm.getByRole('button', { name: 'Delete' }).click();
      await card(name).waitFor({ state: 'detached' });
      if (how === 'lightbox') await page.keyboard.press('Escape');
      else
        await until('focus on a card, not <body>', () =>
          page.evaluate(() => document.activeElement?.closest('li.asset-card') !== null),
        );
      await page.reload();
      await card('owl at night.png').waitFor();
      assert.equal(await card(name).count(), 0, 'gone after a reload');
    });
  }

  for (const [label, size] of [
    ['1440', WIDE],
    ['390', PHONE],
  ] as const)
    test(`${label} px: Create's "From library" finds an upload by its file name and a result by its prompt`, async () => {
      await page.setViewportSize(size);
      await page.goto('/');
      await page.getByRole('button', { name: 'From library' }).click();
      const dialog = page.getByRole('dialog', { name: 'Choose from your library' });
      await dialog.getByRole('img').first().waitFor();
      const search = dialog.getByLabel('Search the library by prompt or file name');
      await search.fill('owl night');
      await search.press('Enter');
      await until('only the owl', async () => {
        const captions = await dialog.locator('.picker-caption').allTextContents();
        return captions.length === 1 && captions[0]?.startsWith('owl at night.png');
      });
      await search.fill('cat oils');
      await search.press('Enter');
      await until('only the edit', async () => {
        const images = await dialog
          .getByRole('img')
          .evaluateAll((list) => list.map((img) => img.getAttribute('alt')));
        return images.length === 1 && images[0] === 'the cat, in oils';
      });
      await expectNoAxeViolations(page, `the library picker at ${label}`);
      await page.keyboard.press('Escape');
    });

  test('the edit keeps its deleted reference: shown in its details, the file still there', async () => {
    await page.setViewportSize(WIDE);
    await page.goto(`/works?work=${await historyId('the cat, in oils')}`);
    await lightbox().waitFor();
    const ref = lightbox().getByRole('img', { name: 'Reference 1' });
    await until('the reference thumbnail loaded', () =>
      ref.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0),
    );
    assert.equal((await fetch(reference)).status, 200);
    await page.keyboard.press('Escape');
  });

  test('1440 and 390 px: the Library is as tall as its whole list at once; the page at the bottom is read as it comes into view', async () => {
    for (const size of [WIDE, PHONE]) {
      await page.setViewportSize(size);
      await page.goto('/library');
      await page.locator('li.asset-card').first().waitFor();
      const grid = page.locator('.library-grid');
      const length = Number(await grid.getAttribute('data-virtual-length'));
      assert.ok(length > 30, `the grid holds the whole list (${length}) from its first page of 30`);
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      // The last position's card, read without the pages between (no button press).
      await until(
        'the last card',
        async () => Number(await grid.getAttribute('data-virtual-end')) === length,
      );
      await until('the last page read', async () => (await grid.locator('.card-placeholder').count()) === 0);
      const oldest = await page.evaluate(
        async (pages) => {
          const answer = await fetch(`/web/api/assets?page=${pages}&limit=30`);
          return ((await answer.json()) as { items: Array<{ id: string }> }).items.at(-1)?.id;
        },
        Math.ceil(length / 30),
      );
      assert.equal(await grid.locator('li.asset-card').last().getAttribute('data-asset-id'), oldest);
      await expectNoAxeViolations(page, `the Library at ${size.width}`);
    }
  });

  testNoConsoleErrors(site);
});
