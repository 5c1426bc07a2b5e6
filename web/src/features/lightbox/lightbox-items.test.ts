import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { LibraryAsset, SavedWork, TaskCard } from '../../lib/types.js';
import { itemsOfAssets, itemsOfCards, itemsOfWorks, workLink } from './lightbox-items.js';

// The focus selectors escape ids as the browser does; these ids need no escaping.
before(() => {
  if (!('CSS' in globalThis)) Object.assign(globalThis, { CSS: { escape: (value: string) => value } });
});

const task = (over: Record<string, unknown>) => ({ status: 'completed', ...over });
const work = (over: Record<string, unknown>): SavedWork =>
  ({
    id: 'gen_1',
    prompt: 'a fox',
    model: 'm',
    mode: 'generate',
    aspect: '1:1',
    imageSize: '1K',
    imageCount: 2,
    source: 'web',
    refs: ['/r.png'],
    createdAt: 10,
    tasks: [],
    ...over,
  }) as unknown as SavedWork;

describe('lightbox items', () => {
  test("a saved work is one item per image, keyed `work:task`, carrying the work's settings", () => {
    const items = itemsOfWorks([
      work({
        tasks: [
          task({ task_id: 't1', imageUrl: '/1.png', width: 10, height: 20, bytes: 30 }),
          task({ task_id: 't2', status: 'running' }),
          task({ task_id: 't3', imageUrl: '/3.png' }),
        ],
      }),
    ]);
    assert.deepEqual(
      items.map((item) => [item.key, item.url, item.workId]),
      [
        ['gen_1:t1', '/1.png', 'gen_1'],
        ['gen_1:t3', '/3.png', 'gen_1'],
      ],
    );
    assert.equal(items[0]?.settings?.count, 2);
    assert.deepEqual(items[0]?.settings?.refs, ['/r.png']);
    assert.equal(
      items[0]?.focusSelector,
      '[data-work-id="gen_1"] .work-cover, .work-cover[data-work-id="gen_1"]',
    );
  });

  test('a work with no image yet is one item saying why (a failure, or still rendering)', () => {
    const [failed] = itemsOfWorks([
      work({ tasks: [task({ task_id: 't', status: 'failed', error: 'blocked' })] }),
    ]);
    const [rendering] = itemsOfWorks([
      work({ id: 'gen_2', tasks: [task({ task_id: 't', status: 'running' })] }),
    ]);
    assert.equal(failed?.key, 'gen_1');
    assert.equal(failed?.url, undefined);
    assert.equal(failed?.note, 'No image: blocked.');
    assert.equal(rendering?.note, 'No image yet: still rendering.');
  });

  test("Create's cards: only those with an image, the generation as the work (none yet: null)", () => {
    const card = (over: Record<string, unknown>) =>
      ({
        task_id: 't',
        status: 'completed',
        generation_id: 'gen_1',
        prompt: 'p',
        model: 'm',
        mode: 'generate',
        aspect: '1:1',
        imageSize: '1K',
        count: 1,
        source: 'web',
        createdAt: 1,
        ...over,
      }) as unknown as TaskCard;
    const items = itemsOfCards([
      card({ task_id: 'a', imageUrl: '/a.png' }),
      card({ task_id: 'b', status: 'running' }),
      card({ task_id: 'c', imageUrl: '/c.png', generation_id: '' }),
    ]);
    assert.deepEqual(
      items.map((item) => [item.key, item.workId]),
      [
        ['a', 'gen_1'],
        ['c', null],
      ],
    );
    assert.equal(items[0]?.settings?.refs, undefined, "a card's references are read from the work");
  });

  test('library assets: an upload is captioned by its name, a result by nothing (its prompt is the alt)', () => {
    const asset = (over: Record<string, unknown>) =>
      ({
        id: 'as_1',
        kind: 'upload',
        url: '/u.png',
        width: 4,
        height: 3,
        bytes: 9,
        createdAt: 1,
        generationId: null,
        prompt: null,
        name: 'cat.png',
        ...over,
      }) as unknown as LibraryAsset;
    const [upload, result] = itemsOfAssets([
      asset({}),
      asset({ id: 'as_2', kind: 'result', prompt: 'a fox', name: null, generationId: 'gen_1' }),
    ]);
    assert.deepEqual(
      [upload?.caption, upload?.alt, upload?.workId],
      ['cat.png', 'Uploaded image, 4 × 3', null],
    );
    assert.deepEqual([result?.caption, result?.alt, result?.workId], [null, 'a fox', 'gen_1']);
  });

  test("a work's link opens it by id in Saved works", () => {
    assert.equal(workLink('gen_1'), '/works?work=gen_1');
  });
});
