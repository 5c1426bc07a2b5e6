import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

const batchCard = (page: Page, text: string) => page.locator('article.batch-card', { hasText: text });

/**
 * An open Create tab drops a work deleted elsewhere — in another tab of the same account, on Saved
 * works — within a few seconds and without a reload: the listing it already reads every 5 seconds
 * names the works deleted since its previous look. Nothing is asked per card.
 */
describe('website: a work deleted elsewhere leaves an open Create (Chromium)', () => {
  const site = websiteSession(() => ({ ATELIER_LOCAL_LATENCY_MS: '300' }));
  const prompts = ['a kept brass lantern', 'a brass lantern deleted on saved works'];
  let page: Page;

  /** Submits through the API with the account's key (Create takes API tasks over at its next look). */
  async function generateByApi(prompt: string) {
    const answer = await site.api('/api/v1/generate', {
      method: 'POST',
      body: JSON.stringify({ prompt, imageSize: '1K' }),
    });
    assert.equal(answer.status, 200, await answer.text());
  }

  before(async () => {
    page = site.page;
    await page.goto('/');
    await site.signIn();
    await page.getByRole('heading', { name: 'Create' }).waitFor();
    for (const prompt of prompts) await generateByApi(prompt);
    for (const prompt of prompts)
      await until(`the card of "${prompt}" with its image`, async () => {
        return (await batchCard(page, prompt).locator('img').count()) === 1;
      });
  });

  test('a work deleted on Saved works in a second tab leaves the first tab’s Create without a reload', async () => {
    // A mark on the document: a reload or a navigation would lose it.
    await page.evaluate(() => {
      (window as unknown as { stillThisDocument: boolean }).stillThisDocument = true;
    });
    const requestedBefore = site.requested.length;

    const second = await site.context.newPage();
    try {
      await second.goto('/works');
      await second.getByRole('heading', { name: 'Saved works' }).waitFor();
      const work = second.locator('article.work-card', { hasText: prompts[1] as string });
      await work.getByRole('button', { name: /^Delete/ }).click();
      const deleted = second.waitForResponse(
        (response) => response.request().method() === 'DELETE' && response.url().includes('/web/api/works/'),
      );
      await second
        .getByRole('dialog', { name: 'Delete this work?' })
        .getByRole('button', { name: 'Delete' })
        .click();
      assert.equal((await deleted).status(), 204);
    } finally {
      await second.close();
    }

    // At the first tab's next look (every 5 s), not at a reload.
    await until(
      'the deleted work to leave Create',
      async () => (await batchCard(page, prompts[1] as string).count()) === 0,
      15_000,
    );
    assert.equal(await batchCard(page, prompts[0] as string).count(), 1, 'the other work stays');
    assert.equal(
      await page.evaluate(() => (window as unknown as { stillThisDocument?: boolean }).stillThisDocument),
      true,
      'the same document: no reload',
    );
    // What the first tab asked meanwhile: the listing it reads anyway (and the allowance and
    // estimates, which follow the number of cards), nothing per card or per work.
    const asked = site.requested.slice(requestedBefore).filter((path) => path.includes('/api/'));
    assert.ok(
      asked.some((path) => /^\/web\/api\/tasks\/pending\?since=\d+$/.test(path)),
      asked.join('\n'),
    );
    for (const path of asked)
      assert.doesNotMatch(path, /\/web\/api\/works|\/api\/v1\/(tasks|history|generations)/, asked.join('\n'));
  });

  test('the deletion holds: a reload does not bring the card back', async () => {
    await page.reload();
    await page.getByRole('heading', { name: 'Create' }).waitFor();
    await batchCard(page, prompts[0] as string).waitFor();
    assert.equal(await batchCard(page, prompts[1] as string).count(), 0);
  });

  testNoConsoleErrors(site);
});
