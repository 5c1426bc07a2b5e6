import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pixelSize } from '../../base/domain/image-sizes.js';
import { generationModels, loadCatalog, parseCatalog } from './catalog.js';
import { DEFAULT_ASPECTS } from './catalog-file.js';

test('the default catalog has the spec four models, text and edit, no fusion, cap 4; and a local route per action', () => {
  const catalog = loadCatalog(undefined, ['local']);
  assert.deepEqual(
    generationModels(catalog).map((m) => m.id),
    ['base-image-2', 'pro', 'flash2', 'flash'],
  );
  assert.deepEqual(
    catalog.models.filter((m) => m.action).map((m) => [m.id, m.action, m.modes]),
    [
      ['upscale', 'upscale', ['edit']],
      ['vary', 'vary', ['edit']],
      ['expand', 'expand', ['edit']],
      ['remove-background', 'remove_background', ['edit']],
    ],
  );
  for (const model of generationModels(catalog)) {
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

test("an action's route is checked: edit only, no aliases, maxScale only on an upscaler", () => {
  const base = { id: 'base-image-2', provider: 'local', upstreamModel: 'local-v1', modes: ['text', 'edit'] };
  const route = {
    id: 'up',
    provider: 'local',
    upstreamModel: 'local-v1',
    modes: ['edit'],
    action: 'upscale',
  };
  assert.doesNotThrow(() => parseCatalog({ models: [base, { ...route, maxScale: 2 }] }, ['local']));
  assert.throws(
    () =>
      parseCatalog(
        {
          models: [
            base,
            { ...route, modes: ['text', 'edit'], aliases: ['x'] },
            { ...route, id: 'v', action: 'vary', maxScale: 2 },
          ],
        },
        ['local'],
      ),
    (error: Error) =>
      /models\.1\.modes: an action's route takes modes \["edit"\]/.test(error.message) &&
      /models\.1\.aliases: an action's route has no aliases/.test(error.message) &&
      /models\.2\.maxScale: maxScale is only for an upscale route/.test(error.message),
  );
});
