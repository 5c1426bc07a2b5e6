import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { DEFAULT_CATALOG, parseCatalog } from './catalog.js';
import type { CatalogFile } from './catalog-file.js';

const PROVIDERS = ['local', 'gemini', 'openai', 'replicate', 'fal', 'localai', 'sdcpp'];

const catalogWith = (aliases: Record<string, string[]>): CatalogFile => ({
  models: ['base-image-2', 'pro'].map((id) => ({
    id,
    aliases: aliases[id] ?? [],
    provider: 'local',
    upstreamModel: 'local-v1',
    modes: ['text' as const],
  })),
});

test('an alias resolves to its model; the entry keeps its canonical id', () => {
  const catalog = parseCatalog(catalogWith({ pro: ['gpt-image-1', 'my-pro'] }), PROVIDERS);
  assert.equal(catalog.get('gpt-image-1')?.id, 'pro');
  assert.equal(catalog.get('my-pro')?.id, 'pro');
  assert.equal(catalog.get('pro')?.id, 'pro');
  assert.equal(catalog.get('dall-e-3'), undefined);
});

test("an alias equal to another model's id, or listed twice, is refused naming it", () => {
  assert.throws(
    () => parseCatalog(catalogWith({ pro: ['base-image-2'] }), PROVIDERS),
    /models\.1\.aliases\.0: alias base-image-2 of pro is already the id or an alias of model base-image-2/,
  );
  assert.throws(
    () => parseCatalog(catalogWith({ 'base-image-2': ['x-1'], pro: ['x-1'] }), PROVIDERS),
    /models\.1\.aliases\.0: alias x-1 of pro is already the id or an alias of model base-image-2/,
  );
  assert.throws(
    () => parseCatalog(catalogWith({ pro: ['pro'] }), PROVIDERS),
    /alias pro of pro is already the id or an alias of model pro/,
  );
  assert.throws(() => parseCatalog(catalogWith({ pro: ['Not An Id'] }), PROVIDERS), /aliases\.0: model id/);
});

test('the built-in and shipped catalogs alias the same OpenAI and Google ids onto the same models', () => {
  const expected = {
    'gpt-image-1': 'pro',
    'gpt-image-1.5': 'pro',
    'gpt-image-1-mini': 'flash2',
    'dall-e-3': 'base-image-2',
    'dall-e-2': 'flash',
    'gemini-3-pro-image': 'pro',
    'gemini-3.1-flash-image': 'base-image-2',
    'gemini-2.5-flash-image': 'flash2',
  };
  const shipped = ['gemini', 'openai', 'replicate', 'fal', 'openai-compatible'].map((name) =>
    JSON.parse(readFileSync(new URL(`../../../catalogs/${name}.json`, import.meta.url), 'utf8')),
  );
  for (const file of [DEFAULT_CATALOG, ...shipped]) {
    const catalog = parseCatalog(file, PROVIDERS);
    for (const [alias, id] of Object.entries(expected)) assert.equal(catalog.get(alias)?.id, id, alias);
  }
});
