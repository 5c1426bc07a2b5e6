import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sumUsage } from './reported-usage.js';

test('usage of several images adds up; a detail any image reported is summed, the rest count 0', () => {
  assert.equal(sumUsage([]), undefined, 'none reported: no usage');
  const openAi = {
    input_tokens: 50,
    output_tokens: 4160,
    total_tokens: 4210,
    input_tokens_details: { image_tokens: 0, text_tokens: 50 },
  };
  const gemini = { input_tokens: 263, output_tokens: 1120, total_tokens: 1533, thinking_tokens: 150 };
  assert.deepEqual(sumUsage([openAi, gemini]), {
    input_tokens: 313,
    output_tokens: 5280,
    total_tokens: 5743,
    input_tokens_details: { image_tokens: 0, text_tokens: 50 },
    thinking_tokens: 150,
  });
  assert.deepEqual(sumUsage([{ input_tokens: 1, output_tokens: 2, total_tokens: 3 }]), {
    input_tokens: 1,
    output_tokens: 2,
    total_tokens: 3,
  });
});
