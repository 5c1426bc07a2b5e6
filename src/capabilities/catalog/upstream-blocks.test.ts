import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ProviderRequest } from '../providers/index.js';
import {
  falInput,
  nearestListedSize,
  readCompatibleUpstreams,
  readFalEndpoints,
} from '../providers/index.js';
import { loadCatalog, parseCatalog } from './catalog.js';

const KNOWN = ['local', 'fal', 'localai'];
const upstreams = { localai: { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:8081' } };
const model = (extra: Record<string, unknown>) => ({
  id: 'base-image-2',
  provider: 'localai',
  upstreamModel: 'sd',
  modes: ['text'],
  ...extra,
});

test('the shipped fal and OpenAI-compatible catalogs load with their blocks', () => {
  for (const name of ['fal', 'openai-compatible']) {
    const path = new URL(`../../../catalogs/${name}.json`, import.meta.url).pathname;
    const names = ['local', 'fal', ...Object.keys(readCompatibleUpstreams(path))];
    assert.ok(loadCatalog(path, names).get('base-image-2'), name);
  }
  const fal = readFalEndpoints(new URL('../../../catalogs/fal.json', import.meta.url).pathname);
  assert.equal(fal['fal-ai/nano-banana-pro']?.editEndpoint, 'fal-ai/nano-banana-pro/edit');
});

test('a route may not ask what its upstream does not offer; the refusal names the fix', () => {
  assert.throws(
    () => parseCatalog({ upstreams, models: [model({ modes: ['text', 'edit'] })] }, KNOWN),
    /upstream localai offers no edits; remove "edit" and "fusion" or set its "edits": true/,
  );
  const editing = { localai: { ...upstreams.localai, edits: true } };
  assert.throws(
    () => parseCatalog({ upstreams: editing, models: [model({ modes: ['edit'], masks: true })] }, KNOWN),
    /takes no masks/,
  );
  const fal = { id: 'base-image-2', provider: 'fal', upstreamModel: 'fal-ai/x', modes: ['text', 'fusion'] };
  assert.throws(() => parseCatalog({ models: [fal] }, KNOWN), /takes no reference image/);
  assert.throws(
    () => parseCatalog({ falEndpoints: { 'fal-ai/x': { references: 'image_url' } }, models: [fal] }, KNOWN),
    /takes one reference image; remove "fusion"/,
  );
  assert.throws(
    () => parseCatalog({ upstreams: { openai: upstreams.localai }, models: [model({})] }, KNOWN),
    /upstreams\.openai: that name is a built-in provider/,
  );
});

test('a bad upstreams block fails the start naming the field', () => {
  const path = join(mkdtempSync(join(tmpdir(), 'catalog-')), 'catalog.json');
  writeFileSync(
    path,
    JSON.stringify({ upstreams: { localai: { kind: 'openai-compatible', baseUrl: 'ftp://x' } } }),
  );
  assert.throws(() => readCompatibleUpstreams(path), /upstreams\.localai\.baseUrl/);
});

test('a fixed size list: the listed size nearest the shape, then the area', () => {
  const sizes = ['512x512', '1024x1024', '768x512', '512x768'];
  assert.equal(nearestListedSize(sizes, 1024, 1024), '1024x1024');
  assert.equal(nearestListedSize(sizes, 600, 600), '512x512');
  assert.equal(nearestListedSize(sizes, 1360, 768), '768x512');
  assert.equal(nearestListedSize(sizes, 768, 1360), '512x768');
});

test('fal inputs: image_size presets, {width, height}, aspect_ratio+resolution, references', async () => {
  const request = {
    taskId: 'tsk_1',
    upstreamModel: 'fal-ai/flux/dev',
    mode: 'text',
    prompt: 'p',
    aspect: '21:9',
    imageSize: '1K',
    width: 1568,
    height: 672,
    index: 0,
    references: [],
    apiKey: 'k',
    signal: new AbortController().signal,
  } satisfies ProviderRequest;
  const shape = { size: 'image_size', references: 'none', seed: true, extraInput: {} } as const;
  const custom = await falInput(request, shape, 1e7);
  assert.deepEqual(typeof custom === 'object' && custom.image_size, { width: 1568, height: 672 });
  const preset = await falInput({ ...request, aspect: '9:16' }, shape, 1e7);
  assert.equal(typeof preset === 'object' && preset.image_size, 'portrait_16_9');
  const banana = await falInput(
    { ...request, imageSize: '4K' },
    { ...shape, size: 'aspect_ratio+resolution' },
    1e7,
  );
  assert.deepEqual(
    typeof banana === 'object' && [banana.aspect_ratio, banana.resolution, banana.num_images],
    ['21:9', '4K', 1],
  );
  const kontext = await falInput({ ...request, imageSize: '2K' }, { ...shape, size: 'aspect_ratio' }, 1e7);
  assert.match(String(kontext), /makes ~1K images only/);
});
