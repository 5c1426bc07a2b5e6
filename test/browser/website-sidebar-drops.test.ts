import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { expectNoAxeViolations } from './axe.js';
import { until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

const PROMPTS = [
  'a harbour at dawn, fishing boats',
  'a harbour crane at night',
  'a desert road, heat haze',
  'a bowl of lemons on blue linen',
  'a fox in fresh snow',
];

/**
 * Issue 37, Saved works' daily-use extras in Chromium at 1440×900: the selection dropped on the
 * sidebar's Starred stars it (Undo unstars); dropped on "+ New collection", it goes into the
 * collection named next; smart collections say how many works they find, kept current; the
 * selection bar's Compare opens the lightbox with the selected works side by side (the Library's, its images).
 */
describe('website sidebar drops, smart collection counts, compare from the selection (Chromium)', () => {
  const site = websiteSession(() => ({ ATELIER_LOCAL_LATENCY_MS: '20' }));
  const { api } = site;
  let page: Page;
  before(() => {
    page = site.page;
  });

  const sidebar = () => page.getByRole('navigation', { name: 'Collections' });
  const entry = (name: string | RegExp) => sidebar().getByRole('link', { name });
  const card = (prompt: string) => page.locator('article.work-card', { hasText: prompt });
  const select = (prompt: string) =>
    card(prompt)
      .getByRole('checkbox', { name: `Select: ${prompt}` })
      .check();
  const toast = () => page.locator('.undo-toast');
  const history = async () =>
    (
      (await (await api('/api/v1/history?limit=50')).json()) as {
        items: Array<{ prompt: string; starred?: boolean; collections?: string[] }>;
      }
    ).items;
  const starredPrompts = async () =>
    (await history())
      .filter((item) => item.starred)
      .map((item) => item.prompt)
      .sort();

  test('sign in and make five works', async () => {
    for (const prompt of PROMPTS) {
      const answer = await api('/api/v1/generate', {
        method: 'POST',
        body: JSON.stringify({ prompt, imageSize: '1K', aspect: '4:3' }),
      });
      assert.equal(answer.status, 200, await answer.clone().text());
      const [taskId] = ((await answer.json()) as { task_ids: string[] }).task_ids;
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
    await page.goto('/works');
    await until(
      'the works listed',
      async () => (await page.locator('article.work-card').count()) === PROMPTS.length,
    );
  });

  test('the selection dropped on Starred is starred (the cards too); Undo takes the stars back', async () => {
    const [dawn, crane] = PROMPTS as [string, string];
    await select(dawn);
    await select(crane);
    await page.getByText('2 selected').waitFor();
    await card(crane)
      .locator('.work-cover')
      .dragTo(entry(/Starred/));
    await toast().getByText('Starred 2 works').waitFor();
    assert.deepEqual(await starredPrompts(), [crane, dawn].sort());
    for (const prompt of [dawn, crane])
      assert.equal(
        await card(prompt).getByRole('button', { name: 'Star' }).getAttribute('aria-pressed'),
        'true',
      );
    await toast().getByRole('button', { name: 'Undo' }).click();
    await until('unstarred', async () => (await starredPrompts()).length === 0);
    assert.equal(
      await card(dawn).getByRole('button', { name: 'Star' }).getAttribute('aria-pressed'),
      'false',
    );
    // Dropped again with one already starred: only the other is starred, and Undo leaves the first.
    await card(dawn).getByRole('button', { name: 'Star' }).click();
    await until('one starred', async () => (await starredPrompts()).length === 1);
    await card(dawn)
      .locator('.work-cover')
      .dragTo(entry(/Starred/));
    await toast().getByText('Starred 1 work').waitFor();
    await toast().getByRole('button', { name: 'Undo' }).click();
    await until('the first stays starred', async () => (await starredPrompts()).join() === dawn);
    await page.getByRole('toolbar', { name: 'Selection' }).getByRole('button', { name: 'Clear' }).click();
  });

  test('works dropped on "+ New collection" go into the collection named next', async () => {
    const road = PROMPTS[2] ?? '';
    await card(road)
      .locator('.work-cover')
      .dragTo(sidebar().getByRole('button', { name: '+ New collection' }));
    const name = sidebar().getByLabel('Name of the new collection');
    await name.waitFor();
    await sidebar().getByText('1 work will go in it').waitFor();
    await name.fill('Roads');
    await sidebar().getByRole('button', { name: 'Create' }).click();
    await toast().getByText('Added 1 work to Roads').waitFor();
    await until('Roads counts 1', async () => /1 work/.test((await entry(/^Roads/).textContent()) ?? ''));
    assert.equal((await history()).find((item) => item.prompt === road)?.collections?.length, 1);
    // Clicked (no drop), the form names an empty collection as before.
    await sidebar().getByRole('button', { name: '+ New collection' }).click();
    assert.equal(
      await sidebar()
        .getByText(/will go in it/)
        .count(),
      0,
    );
    await sidebar().getByRole('button', { name: 'Cancel' }).click();
  });

  test('smart collections say how many works they find, and follow the stars', async () => {
    for (const [name, filters] of [
      ['Harbours', { q: 'harbour' }],
      ['Stars', { starred: true }],
    ] as const) {
      const answer = await page.evaluate(
        async (body) =>
          (
            await fetch('/web/api/smart-collections', {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(body),
            })
          ).status,
        { name, filters },
      );
      assert.equal(answer, 201);
    }
    await page.reload();
    const count = async (name: string) => (await entry(new RegExp(`^${name}`)).textContent()) ?? '';
    await until('Harbours counts 2', async () => /2 works/.test(await count('Harbours')));
    await until('Stars counts 1', async () => /1 work\b/.test(await count('Stars')));
    await card(PROMPTS[4] ?? '')
      .getByRole('button', { name: 'Star' })
      .click();
    await until('Stars counts 2', async () => /2 works/.test(await count('Stars')));
    await expectNoAxeViolations(page, 'sidebar with counts');
  });

  test('Compare in the selection bar opens the lightbox with the selected works side by side', async () => {
    const chosen = [PROMPTS[0], PROMPTS[2], PROMPTS[3]] as string[];
    for (const prompt of chosen) await select(prompt);
    const bar = page.getByRole('toolbar', { name: 'Selection' });
    await bar.getByRole('button', { name: 'Compare' }).click();
    const lightbox = page.locator('dialog.lightbox');
    await lightbox.locator('.compare-panes[data-panes="3"]').waitFor();
    const alts = await lightbox
      .locator('.compare-pane img')
      .evaluateAll((imgs) => imgs.map((img) => img.getAttribute('alt')));
    assert.deepEqual([...alts].sort(), [...chosen].sort());
    await expectNoAxeViolations(page, 'compare from the selection');
    await page.keyboard.press('Escape');
    await lightbox.waitFor({ state: 'detached' });
    // Five selected: more than the lightbox compares at once.
    await select(PROMPTS[1] ?? '');
    await select(PROMPTS[4] ?? '');
    assert.equal(await bar.getByRole('button', { name: 'Compare' }).isDisabled(), true);
    await bar.getByRole('button', { name: 'Clear' }).click();
  });

  test("the Library's selection bar compares its selected images the same way", async () => {
    await page.goto('/library');
    const chosen = [PROMPTS[1], PROMPTS[4]] as string[];
    for (const prompt of chosen)
      await page
        .locator('li.asset-card', { hasText: prompt })
        .getByRole('checkbox', { name: `Select: ${prompt}` })
        .check();
    const bar = page.getByRole('toolbar', { name: 'Selection' });
    await bar.getByText('2 selected').waitFor();
    await bar.getByRole('button', { name: 'Compare' }).click();
    const lightbox = page.locator('dialog.lightbox');
    await lightbox.locator('.compare-panes[data-panes="2"]').waitFor();
    const alts = await lightbox
      .locator('.compare-pane img')
      .evaluateAll((imgs) => imgs.map((img) => img.getAttribute('alt')));
    assert.deepEqual([...alts].sort(), [...chosen].sort());
    // Two: the slider between them is on offer too.
    await lightbox.getByRole('button', { name: /slider/i }).click();
    await lightbox.getByRole('slider').waitFor();
    await page.keyboard.press('Escape');
    await lightbox.waitFor({ state: 'detached' });
    await bar.getByRole('button', { name: 'Clear' }).click();
  });

  testNoConsoleErrors(site);
});
