import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { formatUsd } from '../../src/base/domain/money.js';
import { DEFAULT_CATALOG } from '../../src/capabilities/catalog/catalog.js';
import { gptImageOutputTokens } from '../../src/capabilities/catalog/gpt-image-tokens.js';
import {
  type FakeOpenAI,
  OVERBILLED_TEXT_TOKENS,
  overbilledUsageOf,
  startFakeOpenAI,
} from '../fakes/providers/fake-openai.js';
import { pollUntilFinal } from '../support/api-helpers.js';
import { expectNoAxeViolations } from './axe.js';
import { screenshot, until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

/** A local model with a price: the local renderer costs nothing, this entry costs $0.04 an image at 1K. */
const PRICED = {
  id: 'priced',
  provider: 'local',
  upstreamModel: 'local-v1',
  modes: ['text'],
  price: { perImage: { '1K': 40_000, '2K': 120_000 } },
};
/** An OpenAI model billed by tokens, whose fake upstream bills more than a quote's maximum. */
const QUOTED = {
  id: 'quoted',
  provider: 'openai',
  upstreamModel: 'gpt-image-2.6-flare',
  modes: ['text'],
  qualities: ['high'],
  price: {
    perMillionTokens: { textInput: 5_000_000, imageInput: 8_000_000, output: 30_000_000 },
    maxPerImage: { '1K': 210_720, '2K': 428_160, '4K': 711_570 },
  },
};
const OPENAI_KEY = 'sk-admin-web';
const NEW_EMAIL = 'new.customer@example.test';
const NEW_PASSWORD = 'a customer password';

/**
 * Issue 31: the operator console in Chromium. An operator creates an account (its key shown once),
 * issues and revokes a key on its page, and sees its spend after a generation; axe-core finds no
 * WCAG 2 A/AA violation on the admin pages; a non-operator sees no Admin link and the admin API
 * answers it 403.
 */
describe('operator console (Chromium)', () => {
  let dir: string;
  let openai: FakeOpenAI;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'atelier-admin-web-'));
    openai = await startFakeOpenAI({ apiKey: OPENAI_KEY, usage: overbilledUsageOf });
    await writeFile(
      join(dir, 'catalog.json'),
      JSON.stringify({ models: [...DEFAULT_CATALOG.models, PRICED, QUOTED] }),
    );
  });
  after(async () => {
    await openai.close();
    await rm(dir, { recursive: true, force: true });
  });
  const site = websiteSession(() => ({
    ATELIER_CATALOG: join(dir, 'catalog.json'),
    ATELIER_LOCAL_LATENCY_MS: '200',
    ATELIER_OPENAI_API_KEY: OPENAI_KEY,
    ATELIER_OPENAI_BASE_URL: openai.baseUrl,
  }));
  let newKey = '';

  before(async () => {
    const core = site.server.testApp.core;
    await core.accounts.setOperator((await core.accounts.requireByEmail(site.server.email)).id, true);
  });

  const admin = () => site.page.getByRole('navigation', { name: 'Admin' });

  test('an operator sees Admin and creates an account; its key is shown once and works', async () => {
    const { page } = site;
    await page.goto('/');
    await site.signIn();
    await site.goTo('Admin', '/admin');
    await page.getByRole('heading', { name: 'Accounts', level: 2 }).waitFor();
    await page.getByRole('link', { name: site.server.email }).waitFor();
    await expectNoAxeViolations(page, 'admin accounts');

    await page.getByLabel('E-mail', { exact: true }).fill(NEW_EMAIL);
    await page.getByLabel('Tier', { exact: true }).last().selectOption('standard');
    await page.getByLabel('Password (optional)').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    const shown = page.getByLabel(`API key of ${NEW_EMAIL} — shown once`);
    newKey = await until('the new key', async () => (await shown.inputValue()) || '');
    assert.match(newKey, /^atl_/);
    const status = await site.api('/api/v1/user/status', {}, newKey);
    assert.equal(((await status.json()) as { email: string }).email, NEW_EMAIL);
    await page.getByRole('link', { name: NEW_EMAIL }).waitFor();
    await expectNoAxeViolations(page, 'admin accounts, a key shown');
    await screenshot(page, 'admin-accounts');
  });

  test('on the account’s page the operator issues a key (shown once) and revokes it', async () => {
    const { page } = site;
    await page.getByRole('link', { name: NEW_EMAIL }).click();
    await page.getByRole('heading', { name: NEW_EMAIL }).waitFor();
    await page.getByRole('cell', { name: 'default', exact: true }).first().waitFor();
    await page.getByLabel('New key’s name').fill('dashboard');
    await page.getByLabel('Scope').selectOption('read');
    await page.getByRole('button', { name: 'Issue key' }).click();
    const shown = page.getByLabel('The key “dashboard” — shown once');
    const issued = await until('the issued key', async () => (await shown.inputValue()) || '');
    assert.equal((await site.api('/api/v1/user/status', {}, issued)).status, 200);
    await expectNoAxeViolations(page, 'admin account page, a key shown');

    // The key's own budgets, set in its dialog: shown in its row, held by the API.
    await page.getByRole('button', { name: 'Budget of dashboard' }).click();
    const budgets = page.getByRole('dialog', { name: 'Budgets of the key “dashboard”' });
    await budgets.waitFor();
    await expectNoAxeViolations(page, 'admin key budget dialog');
    await budgets.getByLabel('Daily budget (USD, UTC day)').fill('2.5');
    await budgets.getByRole('button', { name: 'Save budgets' }).click();
    await budgets.getByText('Budgets saved.').waitFor();
    await page.keyboard.press('Escape');
    await budgets.waitFor({ state: 'detached' });
    const row = page.getByRole('row', { name: /dashboard/ });
    await until('the key’s budget in its row', async () => (await row.innerText()).includes('$2.50'));

    await page.getByRole('button', { name: 'Revoke dashboard' }).click();
    await page.locator('dialog[open]').waitFor();
    await expectNoAxeViolations(page, 'admin revoke dialog');
    await page.getByRole('button', { name: 'Revoke key', exact: true }).click();
    await page.getByText('Key “dashboard” revoked.').waitFor();
    assert.equal((await site.api('/api/v1/user/status', {}, issued)).status, 401, 'refused at once');
    assert.equal(await page.getByRole('cell', { name: 'dashboard' }).count(), 0);
    // The account's first key still works.
    assert.equal((await site.api('/api/v1/user/status', {}, newKey)).status, 200);
  });

  test('after a generation the operator sees its spend: on the account’s page and in Usage', async () => {
    const { page } = site;
    const answer = await site.api(
      '/api/v1/generate',
      {
        method: 'POST',
        body: JSON.stringify({ prompt: 'a priced lighthouse', model: 'priced', imageSize: '1K' }),
      },
      newKey,
    );
    assert.equal(answer.status, 200, await answer.clone().text());
    const [taskId] = ((await answer.json()) as { task_ids: string[] }).task_ids;
    await pollUntilFinal(site.server.testApp.app, newKey, taskId ?? '');

    await page.reload();
    const usage = page.locator('section', { has: page.getByRole('heading', { name: 'Usage and spend' }) });
    await until('the account’s spend', async () => (await usage.innerText()).includes('$0.04 spent'));
    await page.getByRole('cell', { name: 'priced' }).waitFor();
    await expectNoAxeViolations(page, 'admin account page with usage');
    await screenshot(page, 'admin-account');

    await admin().getByRole('link', { name: 'Usage and spend' }).click();
    await until('the usage page', () => new URL(page.url()).pathname === '/admin/usage');
    const row = page.getByRole('row', { name: new RegExp(NEW_EMAIL) });
    await until('the account’s row', async () => (await row.innerText()).includes('$0.04'));
    await expectNoAxeViolations(page, 'admin usage');
    assert.equal(await page.getByRole('columnheader', { name: 'Absorbed' }).count(), 0, 'none absorbed yet');
  });

  test('a quoted image the upstream overbilled: Usage shows what the operator absorbed', async () => {
    const { page } = site;
    const body = JSON.stringify({ prompt: 'a quoted lighthouse', model: 'quoted', imageSize: '1K' });
    const quote = (await (await site.api('/api/v1/quotes', { method: 'POST', body }, newKey)).json()) as {
      quote_id: string;
      max_per_image_micros: number;
    };
    const generated = await site.api(
      '/api/v1/generate',
      { method: 'POST', body: JSON.stringify({ ...JSON.parse(body), quote_id: quote.quote_id }) },
      newKey,
    );
    assert.equal(generated.status, 200, await generated.clone().text());
    const [taskId] = ((await generated.json()) as { task_ids: string[] }).task_ids;
    await pollUntilFinal(site.server.testApp.app, newKey, taskId ?? '');
    // The fake's text tokens at $5 / 1M and twice 1K's high-quality output tokens at $30 / 1M.
    const billed = OVERBILLED_TEXT_TOKENS * 5 + 2 * gptImageOutputTokens('high', 1024, 1024) * 30;
    const absorbed = formatUsd(billed - quote.max_per_image_micros);
    await page.reload();
    const figure = page.getByText('Absorbed under quotes').locator('..');
    await until('the absorbed figure', async () => (await figure.innerText()).includes(absorbed));
    await page.getByRole('columnheader', { name: 'Absorbed' }).first().waitFor();
    const row = page.getByRole('row', { name: new RegExp(NEW_EMAIL) });
    assert.ok((await row.innerText()).includes(absorbed), 'in the account’s row');
    await expectNoAxeViolations(page, 'admin usage with an absorbed amount');
  });

  test('policies and upstreams show, without accessibility violations', async () => {
    const { page } = site;
    await admin().getByRole('link', { name: 'Policies and budgets' }).click();
    await page.getByRole('heading', { name: 'Tier policies' }).waitFor();
    await page.getByRole('cell', { name: 'trial' }).first().waitFor();
    await expectNoAxeViolations(page, 'admin policies');
    await admin().getByRole('link', { name: 'Upstreams' }).click();
    await page.getByRole('heading', { name: 'Capacity pools' }).waitFor();
    await page.getByRole('cell', { name: 'local', exact: true }).waitFor();
    await expectNoAxeViolations(page, 'admin upstreams');
    await screenshot(page, 'admin-upstreams');
  });

  test('at 390 px in the dark theme the admin pages have no accessibility violations either', async () => {
    const context = await site.browser.newContext({
      baseURL: site.server.baseUrl,
      viewport: { width: 390, height: 844 },
      colorScheme: 'dark',
    });
    try {
      const page = await context.newPage();
      await page.goto('/admin');
      await page.getByLabel('Email').fill(site.server.email);
      await page.getByLabel('Password').fill(site.server.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('link', { name: NEW_EMAIL }).waitFor();
      await expectNoAxeViolations(page, 'admin accounts, 390 px, dark');
      await page.getByRole('link', { name: NEW_EMAIL }).click();
      await page.getByRole('heading', { name: NEW_EMAIL }).waitFor();
      await page.getByRole('cell', { name: 'priced' }).waitFor();
      await expectNoAxeViolations(page, 'admin account page, 390 px, dark');
      for (const [path, heading] of [
        ['/admin/usage', 'Usage and spend'],
        ['/admin/policies', 'Tier policies'],
        ['/admin/upstreams', 'Capacity pools'],
      ] as const) {
        await page.goto(path);
        await page.getByRole('heading', { name: heading }).waitFor();
        await page.getByRole('table').first().waitFor();
        await expectNoAxeViolations(page, `${path}, 390 px, dark`);
        if (path === '/admin/usage') await screenshot(page, 'admin-usage-390-dark');
      }
    } finally {
      await context.close();
    }
  });

  test('a non-operator sees no Admin link, and the admin API answers 403', async () => {
    const context = await site.browser.newContext({
      baseURL: site.server.baseUrl,
      viewport: { width: 1280, height: 900 },
    });
    try {
      const page = await context.newPage();
      await page.goto('/');
      await page.getByLabel('Email').fill(NEW_EMAIL);
      await page.getByLabel('Password').fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      const nav = page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Account' }).waitFor();
      assert.equal(await nav.getByRole('link', { name: 'Admin' }).count(), 0);
      const answer = await page.evaluate(async () => {
        const response = await fetch('/api/admin/v1/accounts', { credentials: 'same-origin' });
        return { status: response.status, body: await response.json() };
      });
      assert.equal(answer.status, 403);
      assert.equal(answer.body.error.type, 'forbidden');
      // Typed in by hand, the page says so instead of showing anything.
      await page.goto('/admin');
      await page.getByRole('alert').filter({ hasText: 'operators' }).first().waitFor();
    } finally {
      await context.close();
    }
  });

  testNoConsoleErrors(site);
});
