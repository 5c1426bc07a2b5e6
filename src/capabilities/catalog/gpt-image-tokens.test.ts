import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { IMAGE_QUALITIES } from '../../base/domain/image-qualities.js';
import { loadCatalog, routesOf } from './catalog.js';
import { gptImageOutputTokens, maxGptImageOutputTokens } from './gpt-image-tokens.js';

test("OpenAI's token formula gives the calculator's published figures", () => {
  assert.equal(gptImageOutputTokens('high', 1024, 1024), 7024); // $0.211 at $30 / 1M
  assert.equal(gptImageOutputTokens('high', 1536, 1024), 5488);
  assert.equal(gptImageOutputTokens('high', 3584, 2048), 12329);
  assert.equal(gptImageOutputTokens('high', 1792, 1024), 5063);
});

test('the OpenAI catalog reserves at least the formula at every size Atelier sends, per quality', () => {
  const catalog = loadCatalog(fileURLToPath(new URL('../../../catalogs/openai.json', import.meta.url)), [
    'openai',
  ]);
  for (const model of catalog.models) {
    assert.deepEqual(model.qualities, [...IMAGE_QUALITIES], model.id);
    for (const route of routesOf(model)) {
      const price = route.price;
      assert.ok(price?.perMillionTokens && price.maxPerImageByQuality, route.upstreamModel);
      for (const size of model.sizes) {
        for (const quality of IMAGE_QUALITIES) {
          const tokens = maxGptImageOutputTokens(route.upstreamModel, size, quality);
          const most = Math.ceil((tokens * price.perMillionTokens.output) / 1_000_000);
          const row = price.maxPerImageByQuality[quality]?.[size];
          assert.ok(
            row !== undefined && row >= most,
            `${route.upstreamModel} ${size} ${quality}: ${row} < ${most}`,
          );
          assert.ok((price.maxPerImage?.[size] ?? 0) >= row, `${route.upstreamModel} ${size}: maxPerImage`);
        }
      }
    }
  }
});
