import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modelEdited } from './catalog-edits.js';

const document = {
  upstreams: { mine: { baseUrl: 'http://gpu.internal:8080' } },
  models: [
    { id: 'base-image-2', provider: 'local', upstreamModel: 'local-v1', modes: ['text'] },
    {
      id: 'sketch',
      provider: 'mine',
      upstreamModel: 'sd-xl',
      modes: ['text', 'edit'],
      price: { perImage: { '1K': 10_000 } },
      capacity: { maxInFlight: 2 },
      lifecycle: { released: '2025-01-02' },
    },
  ],
};

test('an edit sets the fields given, removes those set to null, keeps the rest of the document', () => {
  const edit = modelEdited(document, 'sketch', {
    price: { perImage: { '1K': 12_000, '2K': 30_000 } },
    capacity: null,
    fallbacks: [{ provider: 'local', upstreamModel: 'local-v1' }],
  });
  assert.ok(edit);
  assert.deepEqual(edit.after, {
    id: 'sketch',
    provider: 'mine',
    upstreamModel: 'sd-xl',
    modes: ['text', 'edit'],
    price: { perImage: { '1K': 12_000, '2K': 30_000 } },
    lifecycle: { released: '2025-01-02' },
    fallbacks: [{ provider: 'local', upstreamModel: 'local-v1' }],
  });
  assert.equal(edit.before, document.models[1]);
  assert.equal(edit.document.upstreams, document.upstreams);
  assert.equal((edit.document.models as unknown[])[0], document.models[0]);
  assert.equal(document.models[1]?.capacity?.maxInFlight, 2, 'the document edited is not changed');
});

test('no such model (or an alias, or no models list): nothing to edit', () => {
  assert.equal(modelEdited(document, 'dall-e-3', {}), undefined);
  assert.equal(modelEdited({ models: 'none' }, 'sketch', {}), undefined);
});
