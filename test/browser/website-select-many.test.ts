import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { readZip } from '../support/zip-reader.js';
import { until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

const SIZES = [
  { name: 'wide', viewport: { width: 1440, height: 900 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
] as const;

/**
 * Issue 30, "Select many" and "Favourites and collections", at 1440×900 and 390×844: a star on a
 * card and in the lightbox, the Starred filter and a collection as filters (in the URL, kept on
 * reload), selecting with the keyboard only (Tab to a card's box, Space, Shift+Space for a range,
 * Ctrl+A, Esc), the ZIP the browser downloads (read back: entries and metadata.json), delete with
 * Undo (restores; nothing reached the server) and without (the works are deleted).
 */
describe('website select many, stars and collections (Chromium, end to end)', () => {
  const site = websiteSession(() => ({ ATELIER_LOCAL_LATENCY_MS: '20' }));
  const { api, goTo, signIn } = site;
  let page: Page;
  before(() => {
    page = site.page;
  });

  const history = async () =>
    (
      (await (await api('/api/v1/history?limit=50')).json()) as {
        items: Array<{
          id: string;
          prompt: string;
          starred?: boolean;
          removed?: boolean;
          collections?: string[];
        }>;
      }
    ).items;
  const generate = async (prompt: string) => {
    const answer = await api('/api/v1/generate', {
      method: 'POST',
      body: JSON.stringify({ prompt, imageSize: '1K' }),
    });
    assert.equal(answer.status, 200, await answer.clone().text());
    for (const taskId of ((await answer.json()) as { task_ids: string[] }).task_ids)
      for (;;) {
        const record = (await (await api(`/api/v1/tasks/${taskId}?wait=30`)).json()) as { status: string };
        if (record.status === 'completed') break;
        assert.notEqual(record.status, 'failed');
      }
  };
  const card = (prompt: string) => page.locator('article.work-card', { hasText: prompt });
  /**
   * Checks a card's select box, scrolled to the middle of the screen first: at the bottom edge the
   * selection bar (sticky once anything is selected) covers it, as it would for a person.
   */
  const select = async (prompt: string) => {
    const box = card(prompt).getByRole('checkbox');
    await box.evaluate((element) => element.scrollIntoView({ block: 'center' }));
    await box.check({ force: true });
  };
  const shownPrompts = () => page.locator('article.work-card .work-prompt').allTextContents();
  const focused = () =>
    page.evaluate(() => {
      const element = document.activeElement as HTMLInputElement | null;
      return element ? `${element.type ?? element.tagName} ${element.getAttribute('aria-label') ?? ''}` : '';
    });
  /** Presses Tab (or Shift+Tab) until focus is on the select box of `prompt`'s card. */
  const tabTo = async (prompt: string, key = 'Tab') => {
    for (let i = 0; i < 120; i++) {
      if ((await focused()) === `checkbox Select: ${prompt}`) return;
      await page.keyboard.press(key);
    }
    assert.fail(`Tab never reached the select box of "${prompt}" (last: ${await focused()})`);
  };
  const openWorks = async (q = '') => {
    await page.goto(`/works${q ? `?q=${encodeURIComponent(q)}` : ''}`);
    await page.getByRole('heading', { name: 'Saved works' }).waitFor();
    await until('the works listed', async () => (await shownPrompts()).length > 0);
  };

  test('sign in', async () => {
    await page.goto('/');
    await signIn();
    await page.getByRole('heading', { name: 'Create' }).waitFor();
  });

  for (const { name, viewport } of SIZES) {
    const prompts = ['alpha', 'bravo', 'charlie', 'delta', 'echo'].map((word) => `${word} ${name} fox`);
    // Newest first: the listing's order.
    const listed = [...prompts].reverse();

    test(`${name}: five works; a star on a card and in the lightbox, the Starred filter in the URL`, async () => {
      await page.setViewportSize(viewport);
      for (const prompt of prompts) await generate(prompt);
      await openWorks(`${name} fox`);
      await until('the search applied', async () => {
        const shown = await shownPrompts();
        if (shown.length !== 5)
          throw new Error(
            `${shown.join(' | ')} / ${JSON.stringify((await history()).map((w) => [w.prompt, w.removed]))}`,
          );
        return true;
      });
      assert.deepEqual(await shownPrompts(), listed);
      const star = card(prompts[1] as string).getByRole('button', { name: 'Star' });
      await star.click();
      await until('starred', async () => (await star.getAttribute('aria-pressed')) === 'true');
      await until(
        'the star stored',
        async () => (await history()).find((w) => w.prompt === prompts[1])?.starred,
      );
      // The lightbox's star (its actions' slot).
      await card(prompts[3] as string)
        .getByRole('button', { name: /^Open:/ })
        .click();
      const lightbox = page.locator('dialog.lightbox');
      await lightbox.getByRole('button', { name: 'Star', exact: true }).click();
      await lightbox.getByRole('button', { name: 'Starred', exact: true }).waitFor();
      await page.keyboard.press('Escape');
      await until('the lightbox closed', async () => (await lightbox.count()) === 0);
      assert.equal(
        await card(prompts[3] as string)
          .getByRole('button', { name: 'Star' })
          .getAttribute('aria-pressed'),
        'true',
      );
      await page.getByRole('button', { name: 'Starred' }).click();
      await until('starred=1 in the URL', () => new URL(page.url()).searchParams.get('starred') === '1');
      await until('only the starred', async () => (await shownPrompts()).length === 2);
      assert.deepEqual(await shownPrompts(), [prompts[3], prompts[1]]);
      // The filter lives in the URL: a reload keeps it.
      await page.reload();
      await until('still only the starred', async () => (await shownPrompts()).length === 2);
      assert.equal(await page.getByRole('button', { name: 'Starred' }).getAttribute('aria-pressed'), 'true');
      await page.getByRole('button', { name: 'Starred' }).click();
      await until('every work again', async () => (await shownPrompts()).length === 5);
    });

    test(`${name}: keyboard only — Tab to a card's box, Space, Shift+Space for a range, Ctrl+A, Esc`, async () => {
      await openWorks(`${name} fox`);
      await until('the search applied', async () => (await shownPrompts()).length === 5);
      await page.getByRole('heading', { name: 'Saved works' }).focus();
      await tabTo(listed[0] as string);
      await page.keyboard.press('Space');
      await page.getByText('1 selected').waitFor();
      await tabTo(listed[2] as string);
      await page.keyboard.press('Shift+Space');
      await page.getByText('3 selected').waitFor();
      const checked = await page.locator('article.work-card input[type=checkbox]:checked').count();
      assert.equal(checked, 3);
      // Focus stays on a box (not in a text field): Ctrl+A selects every loaded work.
      await page.keyboard.press('Control+a');
      await page.getByText('5 selected').waitFor();
      await page.keyboard.press('Escape');
      await until(
        'the selection cleared',
        async () => (await page.getByRole('toolbar', { name: 'Selection' }).count()) === 0,
      );
      // The box shows on focus (it is hidden otherwise, except on touch screens).
      const opacity = await page.evaluate(
        () => getComputedStyle(document.activeElement?.parentElement as Element).opacity,
      );
      assert.equal(opacity, '1');
    });

    test(`${name}: add two to a new collection, and the collection as a filter`, async () => {
      await card(prompts[0] as string).hover();
      await card(prompts[0] as string)
        .getByRole('checkbox')
        .check();
      await card(prompts[4] as string)
        .getByRole('checkbox')
        .check();
      await page.getByText('2 selected').waitFor();
      await page.getByRole('button', { name: 'Add to collection' }).click();
      await page.getByLabel('New collection').fill(`Trip ${name}`);
      await page.getByRole('button', { name: 'Create and add' }).click();
      await until('the dialog closed', async () => (await page.locator('dialog[open]').count()) === 0);
      const collection = page.getByRole('combobox', { name: 'Collection' });
      await until('the collection offered', async () => {
        const offered = await collection.locator('option').allTextContents();
        if (!offered.includes(`Trip ${name} (2)`)) throw new Error(offered.join(' | '));
        return true;
      });
      await collection.selectOption({ label: `Trip ${name} (2)` });
      await until('collection in the URL', () =>
        (new URL(page.url()).searchParams.get('collection') ?? '').startsWith('col_'),
      );
      await until('only the collection', async () => (await shownPrompts()).length === 2);
      assert.deepEqual(await shownPrompts(), [prompts[4], prompts[0]]);
      await page.reload();
      await until('still only the collection', async () => (await shownPrompts()).length === 2);
      await page.getByRole('combobox', { name: 'Collection' }).selectOption({ label: 'All works' });
      await until('every work again', async () => (await shownPrompts()).length >= 5);
    });

    test(`${name}: Download as ZIP — the browser's download holds the originals and metadata.json`, async () => {
      await openWorks(`${name} fox`);
      await until('the search applied', async () => (await shownPrompts()).length === 5);
      for (const prompt of [prompts[2], prompts[3]] as string[]) await select(prompt);
      await page.getByText('2 selected').waitFor();
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Download as ZIP' }).click(),
      ]);
      assert.match(download.suggestedFilename(), /^atelier-\d{4}-\d\d-\d\d-2-files\.zip$/);
      const entries = await readZip(await readFile((await download.path()) as string));
      assert.deepEqual(
        entries.map((entry) => entry.name),
        [`charlie-${name}-fox.png`, `delta-${name}-fox.png`, 'metadata.json'],
      );
      const metadata = JSON.parse(entries[2]?.data.toString('utf8') ?? '') as {
        files: Array<{
          file: string;
          prompt: string;
          model: string;
          bytes: number;
          source: string;
          url: string;
        }>;
      };
      assert.deepEqual(
        metadata.files.map((file) => [file.file, file.prompt, file.source]),
        [
          [`charlie-${name}-fox.png`, prompts[2], 'api'],
          [`delta-${name}-fox.png`, prompts[3], 'api'],
        ],
      );
      assert.ok(
        metadata.files.every((file, index) => file.bytes === entries[index]?.data.length && file.model),
      );
      await page.keyboard.press('Escape');
    });

    test(`${name}: delete with Undo restores; delete without Undo deletes`, async () => {
      for (const prompt of [prompts[0], prompts[1]] as string[]) await select(prompt);
      await page.getByRole('button', { name: 'Delete 2 works' }).click();
      await until('hidden at once', async () => (await card(prompts[0] as string).count()) === 0);
      assert.equal(await card(prompts[1] as string).count(), 0);
      await page.getByRole('status').getByText('Deleted 2 works').waitFor();
      // Focus moved from the Delete button (gone with the bar) to Undo: Enter takes it back.
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Undo');
      await page.keyboard.press('Enter');
      await until('back', async () => (await card(prompts[0] as string).count()) === 1);
      assert.equal(await card(prompts[1] as string).count(), 1);
      // Nothing reached the server.
      assert.ok((await history()).filter((w) => prompts.includes(w.prompt)).every((w) => !w.removed));

      await select(prompts[4] as string);
      const deleted = page.waitForResponse(
        (response) => response.request().method() === 'DELETE' && response.url().includes('/web/api/works/'),
      );
      await page.getByRole('button', { name: 'Delete work' }).click();
      await until('hidden', async () => (await card(prompts[4] as string).count()) === 0);
      // Dismissing the offer sends the deletion at once (its expiry would, 10 s later).
      await page.getByRole('button', { name: 'Dismiss' }).click();
      assert.equal((await deleted).status(), 204);
      // The offer ended with focus in it: focus goes to the heading, not to <body>.
      await until('focus on the heading', () =>
        page.evaluate(() => document.activeElement?.textContent?.trim() === 'Saved works'),
      );
      await until(
        'deleted on the server',
        async () => (await history()).find((w) => w.prompt === prompts[4])?.removed,
      );
      await page.reload();
      await page.getByRole('heading', { name: 'Saved works' }).waitFor();
      await until('the list loaded', async () => (await shownPrompts()).length > 0);
      assert.equal(await card(prompts[4] as string).count(), 0);
    });
  }

  test('wide: the offer expires and the deletion is sent; the Library selects too (ZIP of its assets)', async () => {
    await page.setViewportSize(SIZES[0].viewport);
    await openWorks();
    const prompt = 'bravo wide fox';
    await select(prompt);
    const deleted = page.waitForResponse(
      (response) => response.request().method() === 'DELETE' && response.url().includes('/web/api/works/'),
      { timeout: 20_000 },
    );
    await page.getByRole('button', { name: 'Delete work' }).click();
    assert.equal((await deleted).status(), 204);
    await until(
      'gone from the server',
      async () => (await history()).find((w) => w.prompt === prompt)?.removed,
    );

    await goTo('Library', '/library');
    await until('the library listed', async () => (await page.locator('li.asset-card').count()) > 1);
    await page.locator('li.asset-card').first().getByRole('checkbox').check({ force: true });
    await page.keyboard.press('Shift');
    await page
      .locator('li.asset-card')
      .nth(1)
      .getByRole('checkbox')
      .click({ modifiers: ['Shift'], force: true });
    await page.getByText('2 selected').waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download as ZIP' }).click(),
    ]);
    const entries = await readZip(await readFile((await download.path()) as string));
    assert.equal(entries.length, 3);
    assert.equal(entries.at(-1)?.name, 'metadata.json');
  });

  testNoConsoleErrors(site);
});
