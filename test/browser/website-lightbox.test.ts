import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { distortedImages } from './image-ratios.js';
import { axeViolationsIn, generateAndWait, starredByS, swipe } from './lightbox-support.js';
import { screenshot, until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

const WIDE = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

/**
 * Issue 30, "One lightbox": Create, Saved works and the Library open their images in one lightbox,
 * used here with the keyboard only (once open) at 1440×900 and by swiping at 390×844: the counter,
 * ←/→ and the next page loaded at the end, zoom to 100 % and pan, the metadata panel, every action's
 * shortcut (download, copy prompt, copy link, reuse, use as reference, delete), `?`, Esc and focus.
 */
describe('website lightbox (Chromium, end to end)', () => {
  const site = websiteSession(() => ({ ATELIER_LOCAL_LATENCY_MS: '50' }));
  const { api, goTo, signIn } = site;
  let page: Page;
  let referenceUrl = '';
  before(() => {
    page = site.page;
  });
  const lightbox = () => page.locator('dialog.lightbox');
  const counter = () => lightbox().getByTestId('lightbox-counter').textContent();
  const status = () => lightbox().locator('.lightbox-status').textContent();
  const shown = () => lightbox().locator('img.lightbox-image').getAttribute('alt');
  const focusedName = () =>
    page.evaluate(() => {
      const element = document.activeElement;
      return element ? `${element.tagName} ${element.getAttribute('aria-label') ?? element.textContent}` : '';
    });

  const generate = (prompt: string, body: Record<string, unknown> = {}) => generateAndWait(api, prompt, body);
  const upload = async (width: number, height: number, background: string) => {
    const body = await sharp({ create: { width, height, channels: 3, background } })
      .png()
      .toBuffer();
    const answer = await api('/api/v1/upload', {
      method: 'POST',
      body,
      headers: { 'content-type': 'image/png' },
    });
    assert.equal(answer.status, 200, await answer.clone().text());
    return ((await answer.json()) as { url: string }).url;
  };
  const axeViolations = (selector: string) => axeViolationsIn(page, selector);
  /** Every image shown keeps its natural ratio (the lightbox's included). */
  const assertRatiosKept = async (where: string) => {
    await until(`${where}: the lightbox image loaded`, () =>
      lightbox()
        .locator('img.lightbox-image')
        .evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0),
    );
    assert.deepEqual(await distortedImages(page), [], where);
  };

  test('sign in; a reference upload, four works (one made from the reference), 28 more uploads (past a Library page of 30)', async () => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.goto('/');
    await signIn();
    await page.getByRole('heading', { name: 'Create' }).waitFor();
    referenceUrl = await upload(300, 200, '#c83');
    await generate('a red lighthouse on a cliff', { aspect: '16:9' });
    await generate('a tall tower in fog', { aspect: '9:16' });
    await generate('a square garden', { aspect: '1:1', count: 2 });
    await generate('the lighthouse repainted in blue', {
      aspect: '4:3',
      mode: 'edit',
      imageUrls: [referenceUrl],
    });
    for (let i = 0; i < 28; i++) await upload(120 + i, 80, `rgb(${i * 9}, 120, 200)`);
  });

  test('Create at 1440: open from the card, ←/→ with the counter, 100 % and pan, metadata, Esc', async () => {
    await page.setViewportSize(WIDE);
    await goTo('Create', '/');
    await page.getByRole('button', { name: 'Open image: a tall tower in fog' }).locator('img').waitFor();
    // Keyboard only from here: the card's image button gets focus, Enter opens.
    await page.getByRole('button', { name: 'Open image: a tall tower in fog' }).focus();
    await page.keyboard.press('Enter');
    await lightbox().waitFor();
    assert.equal(await lightbox().getAttribute('aria-modal'), 'true');
    assert.equal(await page.getByRole('dialog', { name: 'a tall tower in fog' }).count(), 1, 'labelled');
    assert.equal(await counter(), '4 / 5'); // newest first: the edit, two of the garden, the tower
    assert.match(await focusedName(), /Next image/);
    await assertRatiosKept('Create, 9:16 fitted');

    await page.keyboard.press('ArrowRight');
    assert.equal(await counter(), '5 / 5');
    assert.equal(await shown(), 'a red lighthouse on a cliff');
    await page.keyboard.press('ArrowRight');
    assert.equal(await counter(), '5 / 5', 'Create does not page: the end is the end');
    assert.equal(await status(), 'This is the last image.');
    await page.keyboard.press('Home');
    assert.equal(await counter(), '1 / 5');
    assert.equal(await shown(), 'the lighthouse repainted in blue');
    await page.keyboard.press('End');
    assert.equal(await shown(), 'a red lighthouse on a cliff');

    // Metadata: prompt, model, mode, aspect, pixel size, local date, source, the work's link.
    const details = lightbox().locator('.lightbox-details');
    await until('the work settings', async () => (await details.textContent())?.includes('Source'));
    const text = (await details.textContent()) ?? '';
    const record = (await (await api('/api/v1/history?limit=10')).json()) as {
      items: Array<{ id: string; prompt: string; model: string; createdAt: number }>;
    };
    const work = record.items.find((item) => item.prompt === 'a red lighthouse on a cliff');
    assert.ok(work);
    const size = await lightbox()
      .locator('img.lightbox-image')
      .evaluate((img: HTMLImageElement) => `${img.naturalWidth} × ${img.naturalHeight} px`);
    const localDate = await page.evaluate(
      (ms) => new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' }).format(ms),
      work.createdAt,
    );
    for (const part of [
      'a red lighthouse on a cliff',
      `Model${work.model}`,
      'ModeText to image',
      'Aspect16:9',
      size,
      localDate,
      'SourceAPI',
    ])
      assert.ok(text.includes(part), `the panel has "${part}": ${text}`);
    const link = await details
      .getByRole('link', { name: 'Open the work in Saved works' })
      .getAttribute('href');
    assert.equal(link, `/works?work=${work.id}`, 'the work by its id alone');

    assert.deepEqual(await axeViolations('dialog.lightbox'), [], 'axe, the lightbox at 1440');

    // 100 %: one image pixel per CSS pixel; the arrows, a drag and the wheel pan.
    await page.keyboard.press('z');
    const stage = lightbox().locator('.lightbox-stage');
    await lightbox().locator('[data-zoom="100"]').waitFor();
    const zoom = await lightbox()
      .locator('img.lightbox-image')
      .evaluate((img: HTMLImageElement) => ({
        natural: img.naturalWidth,
        shown: img.getBoundingClientRect().width,
      }));
    assert.equal(zoom.shown, zoom.natural, 'displayed at its natural width');
    await assertRatiosKept('Create at 100 %');
    const scroll = () => stage.evaluate((s) => ({ left: s.scrollLeft, top: s.scrollTop }));
    const centred = await scroll();
    assert.ok(centred.left > 0, 'zoomed in on the centre');
    await page.keyboard.press('ArrowRight');
    await until('panned right', async () => (await scroll()).left > centred.left);
    assert.equal(await counter(), '5 / 5', 'while zoomed the arrows pan, not move');
    const box = await stage.boundingBox();
    assert.ok(box);
    const before = await scroll();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 150, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await until('dragged left', async () => (await scroll()).left < before.left);
    const dragged = await scroll();
    await page.mouse.wheel(200, 0);
    await until('scrolled', async () => (await scroll()).left > dragged.left);
    await page.keyboard.press('z');
    await lightbox().locator('[data-zoom="fit"]').waitFor();
    await screenshot(page, 'lightbox-create-1440');

    // Esc: closed, focus on the card of the image shown.
    await page.keyboard.press('Escape');
    await lightbox().waitFor({ state: 'detached' });
    assert.equal(
      await page.evaluate(() => document.activeElement?.getAttribute('aria-label')),
      'Open image: a red lighthouse on a cliff',
    );
  });

  test('shortcuts: ? lists them; I hides the details; D downloads, C and L copy, E and R fill Create', async () => {
    await page.getByRole('button', { name: 'Open image: a red lighthouse on a cliff' }).focus();
    await page.keyboard.press('Enter');
    await lightbox().waitFor();
    await page.keyboard.press('?');
    const list = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await list.waitFor();
    const rows = await list.locator('tbody tr').allTextContents();
    assert.deepEqual(await axeViolations('dialog:has(> .dialog-body)'), [], 'axe, the list of shortcuts');
    for (const keys of [
      'D',
      'S',
      'C',
      'L',
      'R',
      'E',
      'U',
      'Shift+U',
      'B',
      'Delete or Backspace',
      'Z',
      '?',
      'Esc',
    ])
      assert.ok(
        rows.some((row) => row.startsWith(keys)),
        `the list names ${keys}: ${rows.join(' | ')}`,
      );
    await page.keyboard.press('Escape');
    await list.waitFor({ state: 'detached' });
    assert.equal(await lightbox().isVisible(), true, 'Esc closed only the list');

    await page.keyboard.press('i');
    await lightbox().locator('.lightbox-details').waitFor({ state: 'detached' });
    await page.keyboard.press('i');
    await lightbox().locator('.lightbox-details').waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('d')]);
    assert.match(download.suggestedFilename(), /^a-red-lighthouse-on-a-cliff-[\w-]{6}\.png$/);
    await page.keyboard.press('c');
    await until('prompt copied', async () => (await status())?.startsWith('Prompt copied'));
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'a red lighthouse on a cliff');
    await page.keyboard.press('l');
    await until('link copied', async () => (await status())?.startsWith('Link copied'));
    const url = await lightbox().locator('img.lightbox-image').getAttribute('src');
    assert.equal(
      await page.evaluate(() => navigator.clipboard.readText()),
      new URL(url ?? '', page.url()).href,
    );

    await page.keyboard.press('e');
    await lightbox().waitFor({ state: 'detached' });
    await page.getByRole('img', { name: 'Reference: a red lighthouse on a cliff' }).waitFor();

    // R on the edit made from the upload: Create takes its prompt, mode, aspect and reference.
    await page.getByRole('button', { name: 'Open image: the lighthouse repainted in blue' }).focus();
    await page.keyboard.press('Enter');
    await lightbox().locator('.ref-list img').waitFor(); // its reference, read from Saved works
    await page.keyboard.press('r');
    await lightbox().waitFor({ state: 'detached' });
    assert.equal(
      await page.getByLabel('Prompt', { exact: true }).inputValue(),
      'the lighthouse repainted in blue',
    );
    assert.equal(await page.getByRole('radio', { name: '4:3' }).isChecked(), true);
    await until('one reference, the upload', async () => {
      const refs = await page
        .locator('.ref img')
        .evaluateAll((images) => images.map((img) => (img as HTMLImageElement).currentSrc));
      return refs.length === 1 && refs[0]?.includes(new URL(referenceUrl).pathname);
    });
  });

  test('Saved works at 1440: metadata with references; Delete asks, then the next image shows', async () => {
    await goTo('Saved works', '/works');
    const cover = page.getByRole('button', { name: 'Open: the lighthouse repainted in blue' });
    await cover.focus();
    await page.keyboard.press('Enter');
    await lightbox().waitFor();
    assert.equal(await counter(), '1 / 5');
    const details = lightbox().locator('.lightbox-details');
    assert.match((await details.textContent()) ?? '', /ModeEdit.*Aspect4:3/);
    assert.equal(await details.locator('.ref-list img').count(), 1, 'the reference, as a thumbnail');
    await assertRatiosKept('Saved works, 4:3');
    await starredByS(page, 'the lighthouse repainted in blue');
    await page.keyboard.press('ArrowRight');
    assert.equal(await shown(), 'a square garden');
    assert.equal(await counter(), '2 / 5');

    await page.keyboard.press('Delete');
    const confirm = page.getByRole('dialog', { name: 'Delete this work?' });
    await confirm.waitFor();
    assert.match(await focusedName(), /BUTTON Cancel/);
    assert.deepEqual(await axeViolations('dialog:has(> .dialog-body)'), [], 'axe, the confirmation');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await confirm.waitFor({ state: 'detached' });
    await until('the garden gone', async () => (await counter()) === '2 / 3');
    assert.equal(await shown(), 'a tall tower in fog', 'the next image took its place');
    assert.equal(await page.locator('article.work-card', { hasText: 'a square garden' }).count(), 0);
    assert.ok(
      await page.evaluate(() => document.querySelector('dialog.lightbox')?.contains(document.activeElement)),
      `focus stays in the lightbox: ${await focusedName()}`,
    );
    await page.keyboard.press('Escape');
    await lightbox().waitFor({ state: 'detached' });
    assert.equal(
      await page.evaluate(() => document.activeElement?.closest('article')?.getAttribute('aria-label')),
      'a tall tower in fog',
    );
  });

  test('the link to a work opens it in Saved works', async () => {
    const history = (await (await api('/api/v1/history?limit=10')).json()) as {
      items: Array<{ id: string; prompt: string }>;
    };
    const tower = history.items.find((item) => item.prompt === 'a tall tower in fog');
    assert.ok(tower);
    await page.goto(`/works?q=tall+tower&work=${tower.id}`);
    await lightbox().waitFor();
    assert.equal(await shown(), 'a tall tower in fog');
    await until('the link left the URL', () => !page.url().includes('work='));
    await page.keyboard.press('Escape');
  });

  test('Library: End, then → loads the next page; the end is said', async () => {
    await goTo('Library', '/library');
    await page.locator('.asset-card img').first().waitFor();
    const first = page.locator('.asset-card .asset-thumb').first();
    await first.focus();
    await page.keyboard.press('Enter');
    await lightbox().waitFor();
    const total = Number((await page.locator('.page-header .muted').textContent())?.split(' ')[0]);
    assert.ok(total > 30, `more than a page: ${total}`);
    assert.equal(await counter(), `1 / ${total}`);
    assert.match((await lightbox().locator('.lightbox-details').textContent()) ?? '', /KindUpload/);
    await page.keyboard.press('End');
    assert.equal(await counter(), `30 / ${total}`);
    await page.keyboard.press('ArrowRight');
    await until('the next page', async () => (await counter()) === `31 / ${total}`);
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowRight');
    assert.equal(await status(), 'This is the last image.');
    await page.keyboard.press('Escape');
    await lightbox().waitFor({ state: 'detached' });
  });

  test('at 390 px: swipe left and right (touch), details below, ratios kept', async () => {
    await page.setViewportSize(PHONE);
    // Opened from Create and the Library too, each with its counter and the image whole.
    // (The Library, newest first: 28 uploads, the edit, the tower, the lighthouse, the reference.)
    for (const [label, path, button, expected] of [
      ['Create', '/', 'Open image: a tall tower in fog', '2 / 3'],
      ['Library', '/library', 'Open: a tall tower in fog', '30 / 32'],
    ] as const) {
      await goTo(label, path);
      // The Library's grid renders the rows near the viewport only (issue 30, scale): the tower,
      // 30th, is near the end, so scroll there first.
      if (label === 'Library') {
        await page.locator('.asset-card').first().waitFor();
        await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      }
      await page.getByRole('button', { name: button }).click();
      await lightbox().waitFor();
      assert.equal(await shown(), 'a tall tower in fog');
      assert.equal(await counter(), expected);
      await assertRatiosKept(`phone, ${label}`);
      await page.keyboard.press('Escape');
      await lightbox().waitFor({ state: 'detached' });
    }
    await goTo('Saved works', '/works');
    await page.getByRole('button', { name: 'Open: a tall tower in fog' }).click();
    await lightbox().waitFor();
    assert.equal(await counter(), '2 / 3');
    await assertRatiosKept('phone, 9:16');
    assert.deepEqual(await axeViolations('dialog.lightbox'), [], 'axe, the lightbox at 390');
    const stage = await lightbox().locator('.lightbox-stage').boundingBox();
    assert.ok(stage);
    const y = stage.y + stage.height / 2;
    await swipe(page, y, stage.x + stage.width * 0.8, stage.x + stage.width * 0.2);
    await until('the next image', async () => (await counter()) === '3 / 3');
    assert.equal(await shown(), 'a red lighthouse on a cliff');
    await assertRatiosKept('phone, 16:9');
    await swipe(page, y, stage.x + stage.width * 0.2, stage.x + stage.width * 0.8);
    await until('the previous image', async () => (await counter()) === '2 / 3');
    await page.keyboard.press('z');
    const zoom = await lightbox()
      .locator('img.lightbox-image')
      .evaluate((img: HTMLImageElement) => ({
        natural: img.naturalWidth,
        shown: img.getBoundingClientRect().width,
      }));
    assert.equal(zoom.shown, zoom.natural, 'at 100 % on the phone too');
    await page.keyboard.press('z');
    await screenshot(page, 'lightbox-works-390');
    await page.keyboard.press('Escape');
    await lightbox().waitFor({ state: 'detached' });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test('Saved works: → past the loaded 24 works loads the next page', async () => {
    // 3 works are left; 22 more make 25, one more than a page of Saved works.
    for (let i = 0; i < 22; i++) await generate(`filler work ${i + 1}`);
    await page.setViewportSize(WIDE);
    await page.goto('/works'); // a fresh listing (the last test left Saved works open)
    const cover = page.getByRole('button', { name: 'Open: filler work 22' });
    await cover.focus();
    await page.keyboard.press('Enter');
    await lightbox().waitFor();
    assert.equal(await counter(), '1 / 24+', 'one image per work loaded so far, more to come');
    await page.keyboard.press('End');
    assert.equal(await counter(), '24 / 24+');
    await page.keyboard.press('ArrowRight');
    await until('the next page', async () => (await counter()) === '25 / 25');
    assert.equal(await shown(), 'a red lighthouse on a cliff', 'the oldest work');
    await page.keyboard.press('ArrowRight');
    assert.equal(await status(), 'This is the last image.');
    await page.keyboard.press('Escape');
    await lightbox().waitFor({ state: 'detached' });
  });

  testNoConsoleErrors(site);
});
