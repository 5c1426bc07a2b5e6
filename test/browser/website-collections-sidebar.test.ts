import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { expectNoAxeViolations } from './axe.js';
import { screenshot, until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

const PROMPTS = [
  'a harbour at dawn, fishing boats, thin fog',
  'a harbour crane at night under sodium lights',
  'portrait of a lighthouse keeper, oil painting',
  'a desert road, heat haze, 1970s film',
  'a bowl of lemons on blue linen',
];

/**
 * Issue 37, Saved works' collections sidebar and smart collections, in Chromium at 1440×900 and
 * 390×844: collections created from the sidebar, works dragged onto one with real HTML5 drag and drop
 * (one card with nothing selected; the selection otherwise), the confirmation and its Undo, the
 * current view marked; a search saved as a smart collection, opened, renamed and deleted (kept on the
 * server: it survives a reload); on a phone the sidebar is a drawer; axe-clean throughout.
 */
describe('website collections sidebar and smart collections (Chromium, end to end)', () => {
  const site = websiteSession(() => ({ ATELIER_LOCAL_LATENCY_MS: '20' }));
  const { api } = site;
  let page: Page;
  before(() => {
    page = site.page;
  });

  const sidebar = () => page.getByRole('navigation', { name: 'Collections' });
  const entry = (name: string | RegExp) => sidebar().getByRole('link', { name });
  const card = (prompt: string) => page.locator('article.work-card', { hasText: prompt });
  const shownPrompts = () => page.locator('article.work-card .work-prompt').allTextContents();
  const collectionsOf = async () => {
    const items = (
      (await (await api('/api/v1/history?limit=50')).json()) as {
        items: Array<{ prompt: string; collections?: string[] }>;
      }
    ).items;
    return new Map(items.map((item) => [item.prompt, item.collections ?? []]));
  };
  const collectionId = async (name: string) => {
    const list = (await (await api('/api/v1/collections')).json()) as {
      items: Array<{ id: string; name: string }>;
    };
    const found = list.items.find((c) => c.name === name);
    assert.ok(found, `collection ${name}`);
    return found.id;
  };
  const smartNames = () =>
    page.evaluate(async () => {
      const answer = await fetch('/web/api/smart-collections');
      return ((await answer.json()) as { items: Array<{ name: string }> }).items.map((s) => s.name);
    });
  const current = () => sidebar().locator('[aria-current="page"]').innerText();
  const toast = () => page.locator('.undo-toast');

  test('sign in and make works of several shapes', async () => {
    for (const [index, prompt] of PROMPTS.entries()) {
      const aspect = ['16:9', '1:1', '4:5', '21:9', '3:4'][index];
      const answer = await api('/api/v1/generate', {
        method: 'POST',
        body: JSON.stringify({ prompt, imageSize: '1K', aspect, count: index === 1 ? 2 : 1 }),
      });
      assert.equal(answer.status, 200, await answer.clone().text());
      for (const taskId of ((await answer.json()) as { task_ids: string[] }).task_ids)
        for (;;) {
          const record = (await (await api(`/api/v1/tasks/${taskId}?wait=30`)).json()) as { status: string };
          if (record.status === 'completed') break;
          assert.notEqual(record.status, 'failed');
        }
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto('/');
    await site.signIn();
    await page.getByRole('heading', { name: 'Create' }).waitFor();
  });

  test('the sidebar lists All works and Starred, and creates collections', async () => {
    await page.goto('/works');
    await until('the works listed', async () => (await shownPrompts()).length === PROMPTS.length);
    assert.equal(await current(), 'All works');
    await sidebar().getByText('No collections yet').waitFor();
    for (const name of ['Harbours', 'Night']) {
      await sidebar().getByRole('button', { name: 'New collection' }).click();
      await sidebar().getByLabel('Name of the new collection').fill(name);
      await sidebar().getByRole('button', { name: 'Create' }).click();
      await entry(new RegExp(`^${name}`)).waitFor();
    }
    assert.equal(
      await entry(/^Harbours/).getAttribute('href'),
      `/works?collection=${await collectionId('Harbours')}`,
    );
    await expectNoAxeViolations(page, 'collections sidebar, 1440');
  });

  test('one card dragged with nothing selected goes into the collection it is dropped on', async () => {
    const dawn = PROMPTS[0] ?? '';
    await card(dawn)
      .locator('.work-cover')
      .dragTo(entry(/^Harbours/));
    await toast().getByText('Added 1 work to Harbours').waitFor();
    await until('Harbours counts 1', async () => (await entry(/^Harbours/).innerText()).includes('1'));
    assert.equal((await entry(/^Harbours/).textContent())?.includes('1 work'), true);
    const id = await collectionId('Harbours');
    assert.deepEqual((await collectionsOf()).get(dawn), [id]);
    // While the confirmation shows, the page goes on: a card selected from the keyboard keeps focus
    // (Undo takes it once, when the confirmation appears, never again at each change of the page).
    const lemons = PROMPTS[4] ?? '';
    const box = card(lemons).getByRole('checkbox', { name: `Select: ${lemons}` });
    await box.focus();
    await page.keyboard.press('Space');
    await page.getByText('1 selected').waitFor();
    assert.equal(
      await page.evaluate(() => document.activeElement?.getAttribute('aria-label')),
      `Select: ${lemons}`,
    );
    await page.keyboard.press('Space');
    assert.equal(await box.isChecked(), false);
    assert.equal((await collectionsOf()).get(dawn)?.length, 1, 'not undone');
    // Dropped again: nothing to add, and nothing to take back.
    await card(dawn)
      .locator('.work-cover')
      .dragTo(entry(/^Harbours/));
    await toast().getByText('Already in Harbours').waitFor();
    assert.equal(await toast().getByRole('button', { name: 'Undo' }).count(), 0);
  });

  test('the selected works are dragged together; Undo takes out exactly those the drop added', async () => {
    const [dawn, crane, keeper] = PROMPTS as [string, string, string];
    for (const prompt of [dawn, crane, keeper])
      await card(prompt)
        .getByRole('checkbox', { name: `Select: ${prompt}` })
        .check();
    await page.getByText('3 selected').waitFor();
    // Dragging a selected card carries the whole selection.
    await card(crane)
      .locator('.work-cover')
      .dragTo(entry(/^Harbours/));
    await toast().getByText('Added 2 works to Harbours').waitFor();
    const harbours = await collectionId('Harbours');
    let marks = await collectionsOf();
    assert.deepEqual(
      [dawn, crane, keeper].map((p) => marks.get(p)),
      [[harbours], [harbours], [harbours]],
    );
    await until('Harbours counts 3', async () =>
      /3\s*,/.test((await entry(/^Harbours/).textContent()) ?? ''),
    );
    await toast().getByRole('button', { name: 'Undo' }).click();
    await until('Harbours counts 1 again', async () =>
      /1\s*,/.test((await entry(/^Harbours/).textContent()) ?? ''),
    );
    marks = await collectionsOf();
    // The work that was in it before the drop stays in it.
    assert.deepEqual(
      [dawn, crane, keeper].map((p) => marks.get(p)),
      [[harbours], [], []],
    );
    // The selection stays: dropped on another collection, all three go.
    await card(keeper)
      .locator('.work-cover')
      .dragTo(entry(/^Night/));
    await toast().getByText('Added 3 works to Night').waitFor();
    assert.equal((await collectionsOf()).get(crane)?.length, 1);
    // A card outside the selection dragged alone is that card only.
    const road = PROMPTS[3] ?? '';
    await card(road)
      .locator('.work-cover')
      .dragTo(entry(/^Night/));
    await toast().getByText('Added 1 work to Night').waitFor();
    await page.getByRole('toolbar', { name: 'Selection' }).getByRole('button', { name: 'Clear' }).click();
    await screenshot(page, 'collections-sidebar-1440');
  });

  test('a collection of the sidebar opens it, marked as the current view', async () => {
    await entry(/^Night/).click();
    await until(
      'the URL names the collection',
      async () => new URL(page.url()).searchParams.get('collection') !== null,
    );
    assert.equal(new URL(page.url()).searchParams.get('collection'), await collectionId('Night'));
    await until('Night lists its 4 works', async () => (await shownPrompts()).length === 4);
    assert.match(await current(), /^Night/);
    await entry('All works').click();
    await until('every work again', async () => (await shownPrompts()).length === PROMPTS.length);
  });

  test('a search saved as a smart collection is listed, opens the search, survives a reload', async () => {
    const saveSearch = sidebar().getByRole('button', { name: 'Save this search' });
    assert.equal(await saveSearch.isDisabled(), true, 'nothing to save without a search');
    await page.getByRole('searchbox').first().fill('harbour');
    await page.getByRole('searchbox').first().press('Enter');
    await until('the search applies', async () => (await shownPrompts()).length === 2);
    await saveSearch.click();
    const dialog = page.getByRole('dialog', { name: 'Save this search' });
    await dialog.getByText('“harbour”').waitFor();
    await expectNoAxeViolations(page, 'save search dialog, 1440');
    await dialog.getByLabel('Name').fill('Ports');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await entry('Ports').waitFor();
    await until('Ports marked, with its count', async () => /^Ports\n2\n/.test(await current()));
    assert.deepEqual(await smartNames(), ['Ports']);

    await entry('All works').click();
    await until('every work again', async () => (await shownPrompts()).length === PROMPTS.length);
    await page.reload();
    await entry('Ports').click();
    await until('the saved search applies', async () => (await shownPrompts()).length === 2);
    assert.equal(new URL(page.url()).searchParams.get('q'), 'harbour');
    await until('Ports marked, with its count', async () => /^Ports\n2\n/.test(await current()));
    await expectNoAxeViolations(page, 'smart collection open, 1440');
    // Dark, with motion reduced: the buttons' colour transitions would be caught half-way.
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    await expectNoAxeViolations(page, 'smart collection open, 1440, dark');
    await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
  });

  test('a smart collection is renamed and deleted from the sidebar', async () => {
    await sidebar().getByRole('button', { name: 'Edit smart collection Ports' }).click();
    let dialog = page.getByRole('dialog', { name: 'Smart collection' });
    await dialog.getByLabel('Name').fill('Harbour views');
    await dialog.getByRole('button', { name: 'Rename' }).click();
    await entry('Harbour views').waitFor();
    assert.deepEqual(await smartNames(), ['Harbour views']);
    await sidebar().getByRole('button', { name: 'Edit smart collection Harbour views' }).click();
    dialog = page.getByRole('dialog', { name: 'Smart collection' });
    await dialog.getByRole('button', { name: 'Delete smart collection' }).click();
    await sidebar().getByText('Saved searches appear here').waitFor();
    assert.deepEqual(await smartNames(), []);
    // The works are untouched: the search still finds them.
    assert.equal((await shownPrompts()).length, 2);
  });

  test('deleting the collection on screen (Manage) leaves the view of what remains', async () => {
    await entry(/^Night/).click();
    await until('Night lists its 4 works', async () => (await shownPrompts()).length === 4);
    await sidebar().getByRole('button', { name: 'Manage' }).click();
    const dialog = page.getByRole('dialog', { name: 'Collections' });
    await dialog.getByRole('button', { name: 'Delete collection Night' }).click();
    await until('Night leaves the sidebar', async () => (await entry(/^Night/).count()) === 0);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await until('every work again', async () => (await shownPrompts()).length === PROMPTS.length);
    assert.equal(new URL(page.url()).search, '');
    assert.equal(await current(), 'All works');
  });

  test('on a phone the sidebar is a drawer: the grid keeps the width, the drawer opens a collection', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/works');
    // One column of tall cards: a virtualised grid may render only those near the screen.
    await page.getByText(`${PROMPTS.length} works`, { exact: true }).waitFor();
    await card(PROMPTS[4] ?? '').waitFor();
    assert.equal(await page.locator('aside.collections-sidebar').count(), 0);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no sideways scroll (${overflow}px)`);
    const cardWidth = (await card(PROMPTS[4] ?? '').boundingBox())?.width ?? 0;
    assert.ok(cardWidth > 330, `a card takes the phone's width (${cardWidth}px)`);
    await page.getByRole('button', { name: 'Collections', exact: true }).click();
    const drawer = page.getByRole('dialog', { name: 'Collections and searches' });
    await drawer.getByRole('link', { name: /^Harbours/ }).waitFor();
    await expectNoAxeViolations(page, 'collections drawer, 390');
    await screenshot(page, 'collections-drawer-390');
    await drawer.getByRole('link', { name: /^Harbours/ }).click();
    await until('the drawer closes', async () => (await drawer.count()) === 0);
    await until('Harbours lists its work', async () => (await shownPrompts()).length === 1);
    await page.getByText('Showing: Harbours').waitFor();
    await expectNoAxeViolations(page, 'saved works with the drawer closed, 390');
  });

  testNoConsoleErrors(site);
});
