import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pixelSize } from '../../base/domain/image-sizes.js';
import { loadCatalog, parseCatalog } from './catalog.js';
import { DEFAULT_ASPECTS } from './catalog-file.js';

test('the default catalog has the spec four models, text and edit, no fusion, cap 4', () => {
  const catalog = loadCatalog(undefined, ['local']);
  assert.deepEqual(
    catalog.models.map((m) => m.id),
    ['base-image-2', 'pro', 'flash2', 'flash'],
  );
  for (const model of catalog.models) {
    assert.deepEqual(model.modes, ['text', 'edit']);
    assert.equal(model.maxCount, 4);
    assert.deepEqual(model.aspects, [...DEFAULT_ASPECTS]);
    assert.equal(model.provider, 'local');
  }
});

test('pixel sizes: 1K/2K/4K are about 1, 4, 16 MP, sides multiples of 16', () => {
  assert.deepEqual(pixelSize('1:1', '1K'), { width: 1024, height: 1024 });
  assert.deepEqual(pixelSize('1:1', '2K'), { width: 2048, height: 2048 });
  assert.deepEqual(pixelSize('1:1', '4K'), { width: 4096, height: 4096 });
  for (const aspect of DEFAULT_ASPECTS) {
    for (const [size, mp] of [
      ['1K', 1],
      ['2K', 4],
      ['4K', 16],
    ] as const) {
      const { width, height } = pixelSize(aspect, size);
      assert.equal(width % 16, 0);
      assert.equal(height % 16, 0);
      const [w, h] = aspect.split(':').map(Number) as [number, number];
      assert.ok(Math.abs(width / height - w / h) < 0.03, `${aspect} ${size} ratio`);
      assert.ok(Math.abs((width * height) / (mp * 1024 * 1024) - 1) < 0.03, `${aspect} ${size} area`);
    }
  }
});

test('a catalog file is validated strictly, naming each problem', () => {
  assert.throws(
    () =>
      parseCatalog({ models: [{ id: 'x', provider: 'nope', upstreamModel: 'm', modes: ['text'] }] }, [
        'local',
      ]),
    /base-image-2/,
  );
  assert.throws(
    () =>
      parseCatalog(
        {
          models: [{ id: 'base-image-2', provider: 'nope', upstreamModel: 'm', modes: ['text'] }],
        },
        ['local'],
      ),
    /unknown provider "nope"/,
  );
  assert.throws(
    () =>
      parseCatalog(
        {
          models: [{ id: 'base-image-2', provider: 'local', upstreamModel: 'm', modes: ['paint'], extra: 1 }],
        },
        ['local'],
      ),
    /modes|extra/,
  );
  assert.throws(
    () =>
      parseCatalog(
        {
          models: [
            { id: 'base-image-2', provider: 'local', upstreamModel: 'm', modes: ['text'], aspects: ['wide'] },
          ],
        },
        ['local'],
      ),
    /aspect/,
  );
});

test('ATELIER_CATALOG: a JSON file overrides the built-in catalog; unreadable or bad JSON fails fast', () => {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-'));
  const path = join(dir, 'catalog.json');
  writeFileSync(
    path,
    JSON.stringify({
      models: [
        {
          id: 'base-image-2',
          provider: 'local',
          upstreamModel: 'local-v1',
          modes: ['text', 'edit', 'fusion'],
          maxCount: 2,
        },
      ],
    }),
  );
  const catalog = loadCatalog(path, ['local']);
  assert.deepEqual(catalog.get('base-image-2')?.modes, ['text', 'edit', 'fusion']);
  assert.equal(catalog.get('base-image-2')?.maxCount, 2);
  assert.throws(() => loadCatalog(join(dir, 'missing.json'), ['local']), /cannot read/);
  writeFileSync(path, '{nope');
  assert.throws(() => loadCatalog(path, ['local']), /not valid JSON/);
});

test('a ComfyUI route without a price costs 0; one with a price keeps it; its workflow settings are read', () => {
  const route = { provider: 'comfyui', upstreamModel: 'comfyui/sdxl-t2i.json', modes: ['text'] };
  const catalog = parseCatalog(
    {
      models: [
        { ...route, id: 'base-image-2', comfyui: { negativePrompt: 'blurry', inputs: { prompt: '6.text' } } },
        { ...route, id: 'priced', price: { perImage: { '1K': 5000 } } },
      ],
    },
    ['comfyui'],
  );
  assert.deepEqual(catalog.get('base-image-2')?.price?.perImage, { '1K': 0, '2K': 0, '4K': 0 });
  assert.equal(catalog.get('base-image-2')?.comfyui?.inputs?.prompt, '6.text');
  assert.deepEqual(catalog.get('priced')?.price?.perImage, { '1K': 5000 });
  assert.throws(
    () =>
      parseCatalog({ models: [{ ...route, id: 'base-image-2', comfyui: { inputs: { prompt: 'text' } } }] }, [
        'comfyui',
      ]),
    /a node input as "<node id>.<input name>"/,
  );
});
