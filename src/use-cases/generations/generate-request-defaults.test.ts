import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCatalog } from '../../capabilities/catalog/index.js';
import { checkGenerateRequest } from './generate-request.js';

test('omitted aspect and imageSize default to 1:1 and 2K where the model offers them, else its first choice', () => {
  const catalog = parseCatalog(
    {
      models: [
        { id: 'base-image-2', provider: 'local', upstreamModel: 'm', modes: ['text'] },
        {
          id: 'small',
          provider: 'local',
          upstreamModel: 'm',
          modes: ['text'],
          sizes: ['1K'],
          aspects: ['3:2', '2:3'],
        },
      ],
    },
    ['local'],
  );
  const standard = checkGenerateRequest({ prompt: 'p' }, catalog);
  assert.deepEqual([standard.aspect, standard.imageSize], ['1:1', '2K']);
  const small = checkGenerateRequest({ prompt: 'p', model: 'small' }, catalog);
  assert.deepEqual([small.aspect, small.imageSize], ['3:2', '1K']);
});
