import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidInput } from '../../base/domain/errors.js';
import { type CatalogEntry, DEFAULT_ASPECTS } from '../../capabilities/catalog/index.js';
import { mapCount, mapSize, openAiParamOf } from './request-mapping.js';

const model = (overrides: Partial<CatalogEntry> = {}): CatalogEntry => ({
  id: 'm',
  provider: 'local',
  upstreamModel: 'local-v1',
  modes: ['text', 'edit'],
  aspects: [...DEFAULT_ASPECTS],
  sizes: ['1K', '2K', '4K'],
  maxCount: 4,
  maxReferences: 4,
  masks: false,
  seeds: false,
  fallbacks: [],
  aliases: [],
  ...overrides,
});
/** An OpenAI-catalog-like model: three ratios, 1K only. */
const narrow = model({ id: 'narrow', aspects: ['1:1', '2:3', '3:2'], sizes: ['1K'] });

const refusedOn = (param: string) => (error: unknown) =>
  error instanceof InvalidInput && error.field === param && error.message.startsWith(param);

test('auto and no size: 1:1 at 1K where offered, else the model’s first choices', () => {
  assert.deepEqual(mapSize(model(), undefined), { aspect: '1:1', imageSize: '1K' });
  assert.deepEqual(mapSize(model(), 'auto'), { aspect: '1:1', imageSize: '1K' });
  assert.deepEqual(mapSize(model({ aspects: ['16:9'], sizes: ['2K', '4K'] }), null), {
    aspect: '16:9',
    imageSize: '2K',
  });
});

test('WxH: the nearest ratio, then the size class nearest in megapixels', () => {
  const cases: Array<[string, string, string]> = [
    ['1024x1024', '1:1', '1K'],
    ['256x256', '1:1', '1K'],
    ['1536x1024', '3:2', '1K'],
    ['1024x1536', '2:3', '1K'],
    ['1792x1024', '16:9', '1K'],
    ['1024x1792', '9:16', '1K'],
    ['2048x2048', '1:1', '2K'],
    ['3840x2160', '16:9', '2K'],
    ['4096x4096', '1:1', '4K'],
    ['2520x1080', '21:9', '2K'],
  ];
  for (const [size, aspect, imageSize] of cases)
    assert.deepEqual(mapSize(model(), size), { aspect, imageSize }, size);
});

test('a class below the model’s smallest is raised to it; above its largest is refused', () => {
  assert.deepEqual(mapSize(model({ sizes: ['2K', '4K'] }), '512x512'), { aspect: '1:1', imageSize: '2K' });
  assert.deepEqual(mapSize(narrow, '1536x1024'), { aspect: '3:2', imageSize: '1K' });
  assert.throws(() => mapSize(narrow, '2048x2048'), refusedOn('size'));
  assert.throws(() => mapSize(narrow, '2048x2048'), /accepted: auto, 1024x1024, 832x1248, 1248x832/);
});

test('more pixels than twice the largest class (nearer a class above it) is refused, not served smaller', () => {
  // 4K at 1:1 is 4096x4096 (16.8 MP): up to twice that (33.5 MP, the log midpoint to 8K) maps to 4K.
  assert.deepEqual(mapSize(model(), '5792x5792'), { aspect: '1:1', imageSize: '4K' });
  for (const size of ['8192x8192', '5808x5808', '16384x9216']) {
    assert.throws(() => mapSize(model(), size), refusedOn('size'), size);
    assert.throws(() => mapSize(model(), size), /larger than its largest size class \(4K\)/, size);
  }
  assert.deepEqual(mapSize(model({ sizes: ['1K', '2K'] }), '2880x2880'), { aspect: '1:1', imageSize: '2K' });
  assert.throws(() => mapSize(model({ sizes: ['1K', '2K'] }), '3072x3072'), refusedOn('size'));
});

test('a ratio the model lacks (more than 10 % off), or a malformed size, is refused naming size', () => {
  assert.throws(() => mapSize(narrow, '1792x1024'), refusedOn('size'));
  assert.throws(() => mapSize(model(), '100x900'), refusedOn('size'));
  for (const bad of ['big', '0x10', '1024', '1024x', '99999x1', '1024X1024', '-1x5']) {
    assert.throws(() => mapSize(model(), bad), refusedOn('size'), bad);
  }
});

test('n: default 1, 1 to the model’s cap, else refused naming n', () => {
  assert.equal(mapCount(model(), undefined), 1);
  assert.equal(mapCount(model(), null), 1);
  assert.equal(mapCount(model(), 4), 4);
  for (const bad of [0, 5, 1.5, -1]) assert.throws(() => mapCount(model(), bad), refusedOn('n'));
  assert.equal(mapCount(model({ maxCount: 8 }), 8), 8);
});

test('the core’s field names read as the OpenAI request’s', () => {
  assert.equal(openAiParamOf('count'), 'n');
  assert.equal(openAiParamOf('aspect'), 'size');
  assert.equal(openAiParamOf('imageUrls[1]'), 'image');
  assert.equal(openAiParamOf('prompt'), 'prompt');
  assert.equal(openAiParamOf(undefined), null);
});
