import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Account } from '../../src/capabilities/accounts/index.js';
import { assertError, bearer, pollUntilFinal, submitGenerate } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

// Lineage (issue 44): a work refines another by `parentId`; history, task records and the versions
// route carry it; deleting a version never deletes its parent. One long-lived app, turns in order.
describe('lineage: a work refines an earlier one', () => {
  let t: TestApp;
  let apiKey: string;
  let accountId: string;
  let otherKey: string;
  let first: { generationId: string; taskId: string };

  const historyItems = async (key = apiKey) =>
    (await t.app.inject({ method: 'GET', url: '/api/v1/history?limit=50', headers: bearer(key) })).json()
      .items as Array<Record<string, unknown>>;
  const versions = (id: string, key = apiKey) =>
    t.app.inject({ method: 'GET', url: `/api/v1/history/${id}/versions`, headers: bearer(key) });
  const generate = (payload: Record<string, unknown>, key = apiKey) =>
    t.app.inject({ method: 'POST', url: '/api/v1/generate', headers: bearer(key), payload });

  /** Runs one turn to its end: the completed task's id and its generation's. */
  async function turn(payload: Record<string, unknown>) {
    const [taskId] = await submitGenerate(t.app, apiKey, { model: 'flash2', imageSize: '1K', ...payload });
    assert.ok(taskId);
    const { final } = await pollUntilFinal(t.app, apiKey, taskId);
    assert.equal(final.status, 'completed', JSON.stringify(final));
    const items = await historyItems();
    const item = items.find((i) => (i.images as string[]).includes(final.imageUrl ?? ''));
    assert.ok(item, 'the turn is in history');
    return {
      generationId: String(item.id),
      taskId,
      record: final as unknown as Record<string, unknown>,
      item,
    };
  }

  before(async () => {
    t = await createTestApp();
    ({ apiKey, id: accountId } = await t.createAccount());
    ({ apiKey: otherKey } = await t.createAccount());
    // A history of mixed shapes before the conversation starts.
    await turn({ prompt: 'a harbour at night, long exposure '.repeat(40).trim(), aspect: '16:9' });
    const made = await turn({ prompt: 'a red bicycle against a white wall', aspect: '3:4' });
    first = { generationId: made.generationId, taskId: made.taskId };
  });
  after(() => t.close());

  test('three turns by task id and by work id: each names its parent, the image is its first reference', async () => {
    const second = await turn({ prompt: 'make the wall blue', parentId: first.taskId });
    assert.equal(second.item.parentId, first.generationId);
    assert.equal(second.item.parentTaskId, first.taskId);
    assert.equal(second.item.instruction, 'make the wall blue');
    assert.equal(second.item.mode, 'edit');
    // The parent's image is the reference (Atelier's own URL), and the aspect is the parent's.
    const parentItem = (await historyItems()).find((i) => i.id === first.generationId);
    assert.deepEqual(second.item.refs, parentItem?.images);
    assert.equal(second.item.aspect, '3:4');
    assert.equal(second.record.parentTaskId, first.taskId);

    const third = await turn({
      prompt: 'make the wall blue and add a cat on the saddle',
      instruction: 'add a cat',
      parentId: second.generationId,
    });
    assert.equal(third.item.parentId, second.generationId);
    assert.equal(third.item.parentTaskId, second.taskId);
    assert.equal(third.item.instruction, 'add a cat');

    // A second branch from the first work.
    const branch = await turn({ prompt: 'black and white', parentId: first.generationId });
    assert.equal(branch.item.parentTaskId, first.taskId);

    const chain = await versions(third.generationId);
    assert.equal(chain.statusCode, 200, chain.body);
    const ids = (chain.json().versions as Array<{ id: string }>).map((v) => v.id);
    assert.deepEqual(ids, [first.generationId, second.generationId, third.generationId, branch.generationId]);
    // The same family from any member; the first work has no lineage fields.
    const fromRoot = (await versions(first.generationId)).json().versions as Array<Record<string, unknown>>;
    assert.deepEqual(
      fromRoot.map((v) => v.id),
      ids,
    );
    assert.equal(fromRoot[0]?.parentId, undefined);
    // An image's task id names its work too (agents hold task ids).
    const byTask = (await versions(third.taskId)).json().versions as Array<{ id: string }>;
    assert.deepEqual(
      byTask.map((v) => v.id),
      ids,
    );

    // Deleting a version (from saved works, as the website does) keeps its parent and its child;
    // the chain marks it removed, and the parent's image still serves.
    await t.core.generations.remove({ id: accountId } as Account, second.generationId);
    const after = (await versions(third.generationId)).json().versions as Array<Record<string, unknown>>;
    assert.deepEqual(
      after.map((v) => [v.id, v.removed ?? false]),
      ids.map((id) => [id, id === second.generationId]),
    );
    const parentImage = String((after[0]?.images as string[] | undefined)?.[0]);
    const served = await t.app.inject({ method: 'GET', url: new URL(parentImage).pathname });
    assert.equal(served.statusCode, 200);
    // A removed version can still be refined further (its row and image are kept).
    const again = await turn({ prompt: 'warmer light', parentId: second.taskId });
    assert.equal(again.item.parentId, second.generationId);
  });

  test('refusals: unknown, malformed, empty and another account’s ids are 400s naming parentId; another account’s versions are a 404', async () => {
    const unknown = assertError(
      await generate({ prompt: 'x', parentId: 'tsk_nope' }),
      400,
      'invalid_request',
    );
    assert.match(unknown, /^parentId /);
    assertError(await generate({ prompt: 'x', parentId: 'nothing' }), 400, 'invalid_request');
    // Another account's work reads exactly as an unknown one.
    const foreign = assertError(
      await generate({ prompt: 'x', parentId: first.taskId }, otherKey),
      400,
      'invalid_request',
    );
    assert.match(foreign, /no image of this account/);
    const foreignWork = assertError(
      await generate({ prompt: 'x', parentId: first.generationId }, otherKey),
      400,
      'invalid_request',
    );
    assert.match(foreignWork, /no work of this account/);
    assert.equal((await versions(first.generationId, otherKey)).statusCode, 404);
    assertError(await generate({ prompt: 'x', parentId: '' }), 400, 'invalid_request');
  });
});
