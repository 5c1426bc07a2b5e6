import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { type FakeGemini, startFakeGemini } from '../../../test/fakes/providers/fake-gemini.js';
import { startFakeHttpServer } from '../../../test/fakes/providers/fake-http.js';
import { type FakeOpenAI, startFakeOpenAI } from '../../../test/fakes/providers/fake-openai.js';
import { type FakeReplicate, startFakeReplicate } from '../../../test/fakes/providers/fake-replicate.js';
import { runCli } from '../../edges/cli/main.js';
import type { ImageProvider } from '../providers/index.js';
import { createGeminiProvider, createOpenAIProvider, createReplicateProvider } from '../providers/index.js';
import { parseCatalog } from './catalog.js';
import { checkCatalog, dateStatus, formatCatalogReport, priceProblems } from './catalog-check.js';
import type { CatalogFile } from './catalog-file.js';
import { routePriceSchema } from './prices.js';
import { reportCatalogAtStart } from './startup-check.js';

const GEMINI_KEY = 'AIzaCatalogCheck-0123456789abcdefghij';
const OPENAI_KEY = 'sk-catalog-check-0123456789abcdef';
const REPLICATE_TOKEN = 'r8_catalogCheck0123456789abcdefgh';
const PROVIDERS = ['local', 'gemini', 'openai', 'replicate'];
/** 2026-11-25, noon UTC. */
const NOW = Date.parse('2026-11-25T12:00:00Z');

const CATALOG: CatalogFile = {
  models: [
    {
      id: 'base-image-2',
      provider: 'gemini',
      upstreamModel: 'gemini-3.1-flash-image',
      modes: ['text', 'edit'],
      fallbacks: [{ provider: 'openai', upstreamModel: 'gpt-image-2.5-flare' }],
    },
    {
      id: 'pro',
      provider: 'gemini',
      upstreamModel: 'gemini-3-pro-image-preview',
      modes: ['text'],
      lifecycle: { shutdown: '2026-06-25', replacement: 'gemini-3-pro-image' },
    },
    {
      id: 'flash2',
      provider: 'openai',
      upstreamModel: 'gpt-image-1-mini',
      modes: ['text'],
      // No shutdown day in the catalog: the one OpenAI's model list announces counts.
      lifecycle: { deprecated: '2026-09-08', replacement: 'gpt-image-2.5-flare' },
    },
    { id: 'flash', provider: 'openai', upstreamModel: 'gpt-image-1', modes: ['text'] },
    { id: 'nb', provider: 'replicate', upstreamModel: 'google/nano-banana-2', modes: ['text'] },
    { id: 'gone', provider: 'replicate', upstreamModel: 'acme/retired', modes: ['text'] },
    { id: 'offline', provider: 'local', upstreamModel: 'local-v1', modes: ['text'] },
  ],
};

describe('catalog check', () => {
  let gemini: FakeGemini;
  let openai: FakeOpenAI;
  let replicate: FakeReplicate;
  let providers: Map<string, ImageProvider>;
  before(async () => {
    gemini = await startFakeGemini({ apiKey: GEMINI_KEY });
    openai = await startFakeOpenAI({ apiKey: OPENAI_KEY });
    replicate = await startFakeReplicate({
      token: REPLICATE_TOKEN,
      models: [
        { name: 'google/nano-banana-2', version: 'e'.repeat(64), inputs: { prompt: { type: 'string' } } },
      ],
    });
    providers = new Map<string, ImageProvider>([
      ['gemini', createGeminiProvider({ baseUrl: gemini.baseUrl })],
      ['openai', createOpenAIProvider({ baseUrl: openai.baseUrl })],
      ['replicate', createReplicateProvider({ baseUrl: replicate.baseUrl })],
    ]);
  });
  after(async () => {
    await Promise.all([gemini.close(), openai.close(), replicate.close()]);
  });

  const keys = { gemini: GEMINI_KEY, openai: OPENAI_KEY, replicate: REPLICATE_TOKEN };
  const run = (overrides: Partial<Parameters<typeof checkCatalog>[0]> = {}) =>
    checkCatalog({
      catalog: parseCatalog(CATALOG, PROVIDERS),
      providers,
      keys,
      now: () => NOW,
      ...overrides,
    });

  test('dates: past, near (within 30 days) and far shutdowns, and deprecations', () => {
    assert.equal(dateStatus({ shutdown: '2026-06-25' }, NOW), 'past_shutdown');
    assert.equal(dateStatus({ shutdown: '2026-12-01' }, NOW), 'near_shutdown');
    assert.equal(dateStatus({ shutdown: '2027-05-07' }, NOW), 'ok');
    assert.equal(dateStatus({ shutdown: '2027-05-07', deprecated: '2026-11-01' }, NOW), 'deprecated');
    assert.equal(dateStatus({ shutdown: '2026-12-01' }, NOW, 3), 'ok');
    assert.equal(dateStatus(undefined, NOW), 'ok');
  });

  test('asks each model list: present, missing and past shutdown, with the replacement named', async () => {
    const report = await run();
    const status = Object.fromEntries(
      report.routes.map((r) => [`${r.provider} ${r.upstreamModel}`, [r.dates, r.upstream]]),
    );
    assert.deepEqual(status, {
      'gemini gemini-3.1-flash-image': ['ok', 'present'],
      'openai gpt-image-2.5-flare': ['ok', 'present'],
      'gemini gemini-3-pro-image-preview': ['past_shutdown', 'missing'],
      'openai gpt-image-1-mini': ['near_shutdown', 'present'],
      'openai gpt-image-1': ['ok', 'missing'],
      'replicate google/nano-banana-2': ['ok', 'present'],
      'replicate acme/retired': ['ok', 'missing'],
      'local local-v1': ['ok', 'not_checked'],
    });
    assert.deepEqual(report.warnings, [
      "pro → gemini gemini-3-pro-image-preview: shut down on 2026-06-25 (153 days ago); gemini's model list does not have it: tasks on it will fail; replacement: gemini-3-pro-image",
      "flash2 → openai gpt-image-1-mini: shuts down on 2026-12-01 (in 6 days) (announced by openai's model list); replacement: gpt-image-2.5-flare",
      "flash → openai gpt-image-1: openai's model list does not have it: tasks on it will fail",
      "gone → replicate acme/retired: replicate's model list does not have it: tasks on it will fail",
    ]);
    // The Gemini list is paged: every page was read (the fake serves two models a page).
    assert.ok(gemini.requests.filter((r) => r.path === '/v1/models').length > 1);
  });

  test('prices: one read too long ago, a token-billed route without maxPerImage; models the provider lists that the catalog lacks', async () => {
    const tokens = { textInput: 5_000_000, output: 30_000_000 };
    const priced: CatalogFile = {
      models: [
        {
          id: 'base-image-2',
          provider: 'openai',
          upstreamModel: 'gpt-image-2.6-flare',
          modes: ['text'],
          price: {
            asOf: '2026-11-20',
            perImage: { '2K': 1 },
            perMillionTokens: tokens,
            maxPerImage: { '2K': 2 },
          },
          fallbacks: [
            {
              provider: 'openai',
              upstreamModel: 'gpt-image-2.5-flare-2026-09-08',
              price: { asOf: '2026-08-01', perImage: { '2K': 1 }, perMillionTokens: tokens },
            },
          ],
        },
        { id: 'pro', provider: 'gemini', upstreamModel: 'gemini-3.1-flash-image', modes: ['text'] },
      ],
    };
    const report = await run({ catalog: parseCatalog(priced, PROVIDERS) });
    assert.deepEqual(report.prices, [
      "base-image-2 → openai gpt-image-2.5-flare-2026-09-08: its price was read on 2026-08-01 (116 days ago, more than 90): re-read the provider's pricing page",
      'base-image-2 → openai gpt-image-2.5-flare-2026-09-08: it bills tokens but has no maxPerImage: admission reserves only the per-image figure',
    ]);
    // Informational: the image models each list has that no route uses (a routed model's dated
    // snapshot or undated alias is the same model); text models are not listed.
    assert.deepEqual(report.unlisted.toSorted(), [
      'gemini lists gemini-3-pro-image, which the catalog does not offer',
      'openai lists chatgpt-image-latest, which the catalog does not offer',
      'openai lists gpt-image-1-mini, which the catalog does not offer',
      'openai lists gpt-image-1.5, which the catalog does not offer',
      'openai lists gpt-image-2, which the catalog does not offer',
      'openai lists gpt-image-2-2026-04-21, which the catalog does not offer',
      'openai lists gpt-image-2.5-sunburst, which the catalog does not offer',
      'openai lists gpt-image-2.5-sunburst-2026-09-08, which the catalog does not offer',
      'openai lists gpt-image-2.6-sunburst, which the catalog does not offer',
    ]);
    const lines = formatCatalogReport(report);
    assert.ok(
      lines.some((line) =>
        line.startsWith('PRICE base-image-2 → openai gpt-image-2.5-flare-2026-09-08: its price was read'),
      ),
    );
    assert.ok(lines.includes('INFO openai lists gpt-image-2, which the catalog does not offer'));
  });

  test('an old price keeps its report, with its last re-read attempt when one could not confirm it', () => {
    const now = Date.parse('2026-11-28T00:00:00Z');
    const price = routePriceSchema.parse({
      asOf: '2026-03-24',
      source: 'https://ai.google.dev/gemini-api/docs/pricing',
      perImage: { '1K': 134_000 },
      recheck: { on: '2026-11-28', note: 'the page could not be read; the figures stand' },
    });
    assert.deepEqual(priceProblems(price, now), [
      'its price was read on 2026-03-24 (249 days ago, more than 90): re-read https://ai.google.dev/gemini-api/docs/pricing (last attempt 2026-11-28: the page could not be read; the figures stand)',
    ]);
    assert.throws(() => routePriceSchema.parse({ ...price, recheck: { on: 'yesterday', note: 'x' } }));
  });

  test('no key: the provider is not asked; an unreachable model list is a warning, never a throw', async () => {
    const unreachable = createOpenAIProvider({ baseUrl: 'http://127.0.0.1:9' });
    const report = await run({
      keys: { gemini: undefined, openai: OPENAI_KEY, replicate: REPLICATE_TOKEN },
      providers: new Map([...providers, ['openai', unreachable]]),
    });
    const pro = report.routes.find((r) => r.upstreamModel === 'gemini-3-pro-image-preview');
    assert.equal(pro?.upstream, 'not_checked');
    assert.equal(pro?.detail, 'no deployment key for gemini');
    const mini = report.routes.find((r) => r.upstreamModel === 'gpt-image-1-mini');
    assert.equal(mini?.upstream, 'error');
    assert.ok(report.warnings.some((w) => /could not ask openai's model list \(network error/.test(w)));
    assert.ok(formatCatalogReport(report).some((line) => line.startsWith('WARNING pro → gemini')));
  });

  test('at start: warnings go to the log; a model list that never answers only adds a warning', async () => {
    const hanging = await startFakeHttpServer(() => ({ hang: true }));
    try {
      const lines: Array<{ level: number; msg: string }> = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
      await reportCatalogAtStart({
        catalog: parseCatalog(CATALOG, PROVIDERS),
        providers: new Map([...providers, ['openai', createOpenAIProvider({ baseUrl: hanging.baseUrl })]]),
        keys,
        now: () => NOW,
        logger,
        timeoutMs: 300,
      });
      const warnings = lines.filter((line) => line.level === 40).map((line) => line.msg);
      assert.ok(
        warnings.some((w) =>
          w.startsWith('catalog check: pro → gemini gemini-3-pro-image-preview: shut down on'),
        ),
        warnings.join('\n'),
      );
      assert.ok(
        warnings.some((w) =>
          /^catalog check: flash2 → openai gpt-image-1-mini: deprecated since 2026-09-08; could not ask openai's model list/.test(
            w,
          ),
        ),
        warnings.join('\n'),
      );
    } finally {
      await hanging.close();
    }
  });

  test('the catalog check command: prints the report and exits 1 when a model is gone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'atelier-catalog-'));
    try {
      const path = join(dir, 'catalog.json');
      await writeFile(path, JSON.stringify(CATALOG));
      const env = {
        ATELIER_DATA_DIR: dir,
        ATELIER_CATALOG: path,
        LOG_LEVEL: 'silent',
        ATELIER_GEMINI_API_KEY: GEMINI_KEY,
        ATELIER_GEMINI_BASE_URL: gemini.baseUrl,
        ATELIER_OPENAI_API_KEY: OPENAI_KEY,
        ATELIER_OPENAI_BASE_URL: openai.baseUrl,
        ATELIER_REPLICATE_API_TOKEN: REPLICATE_TOKEN,
        ATELIER_REPLICATE_BASE_URL: replicate.baseUrl,
      };
      const lines: string[] = [];
      const io = { env, out: (line: string) => lines.push(line), err: (text: string) => lines.push(text) };
      assert.equal(await runCli(['catalog', 'check'], io), 1);
      assert.ok(lines.includes('openai gpt-image-1 [flash]: ok; upstream: missing'), lines.join('\n'));
      assert.ok(
        lines.some((l) =>
          /^WARNING pro → gemini gemini-3-pro-image-preview: shut down on 2026-06-25/.test(l),
        ),
      );
      // This catalog prices nothing: each paid route is named, the offline renderer is not.
      assert.ok(
        lines.includes(
          "NOTE nb → replicate google/nano-banana-2: no price in the catalog — its images' cost is null, usage counts them at $0 and budgets reserve nothing for them",
        ),
        lines.join('\n'),
      );
      assert.equal(lines.filter((l) => l.startsWith('NOTE ')).length, 7);

      // The shipped catalogs name models the providers serve: nothing gone, nothing near its end.
      for (const file of ['gemini', 'openai']) {
        lines.length = 0;
        const shipped = new URL(`../../../catalogs/${file}.json`, import.meta.url).pathname;
        assert.equal(await runCli(['catalog', 'check', '--catalog', shipped], io), 0, lines.join('\n'));
        assert.equal(lines.at(-1), 'No problems found.', lines.join('\n'));
        assert.ok(
          !lines.some((l) => l.startsWith('NOTE ')),
          `every shipped route has a price: ${lines.join('\n')}`,
        );
      }
      lines.length = 0;
      assert.equal(await runCli(['catalog', 'check', '--offline', '--json'], io), 1);
      const json = JSON.parse(lines[0] ?? '{}') as { routes: Array<{ upstream: string }> };
      assert.ok(json.routes.every((r) => r.upstream === 'not_checked'));
      assert.equal(await runCli(['catalog', 'list'], io), 2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
