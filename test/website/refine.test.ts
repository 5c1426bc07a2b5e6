import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { signedInCookie, TEST_ORIGIN } from '../support/website-session.js';

const PASSWORD = 'correct horse battery';

interface Version {
  id: string;
  prompt: string;
  images: string[];
  parentId?: string;
  parentTaskId?: string;
  instruction?: string;
  removed?: true;
}

/**
 * Refine from the website (issue 44): POST /web/api/generate takes `parentId` and `instruction`, and
 * GET /web/api/works/{id}/versions lists the work's versions for the lightbox's strip. One app,
 * turns in order, signed in as the website is.
 */
describe('website: refine a work and list its versions', () => {
  let t: TestApp;
  let apiKey: string;
  let cookie: string;
  let otherCookie: string;
  let first: { generationId: string; taskId: string };

  const web = () => ({ cookie, origin: TEST_ORIGIN });
  const generate = (payload: Record<string, unknown>, headers: Record<string, string> = web()) =>
    t.app.inject({ method: 'POST', url: '/web/api/generate', headers, payload });
  const versions = (id: string, who = cookie) =>
    t.app.inject({ method: 'GET', url: `/web/api/works/${id}/versions`, headers: { cookie: who } });
  const list = async (id: string) => {
    const answer = await versions(id);
    assert.equal(answer.statusCode, 200, answer.body);
    return (answer.json() as { versions: Version[] }).versions;
  };

  /** One turn from the website to its end: its task and its generation. */
  async function turn(payload: Record<string, unknown>) {
    const answer = await generate({ model: 'flash2', imageSize: '1K', ...payload });
    assert.equal(answer.statusCode, 200, answer.body);
    const [taskId = ''] = (answer.json() as { task_ids: string[] }).task_ids;
    const { final } = await pollUntilFinal(t.app, apiKey, taskId);
    assert.equal(final.status, 'completed', JSON.stringify(final));
    const task = await t.core.resources.db
      .selectFrom('tasks')
      .select('generation_id')
      .where('id', '=', taskId)
      .executeTakeFirstOrThrow();
    return { generationId: task.generation_id, taskId };
  }

  before(async () => {
    t = await createTestApp();
    const account = await t.createAccount(undefined, { password: PASSWORD });
    apiKey = account.apiKey;
    cookie = await signedInCookie(t.app, { email: account.email, password: PASSWORD });
    const other = await t.createAccount(undefined, { password: PASSWORD });
    otherCookie = await signedInCookie(t.app, { email: other.email, password: PASSWORD });
    first = await turn({ prompt: 'a lighthouse on a cliff', aspect: '3:4' });
  });
  after(() => t?.close());

  test('a lone work is its only version, with no lineage fields', async () => {
    const alone = await list(first.generationId);
    assert.deepEqual(
      alone.map((v) => v.id),
      [first.generationId],
    );
    assert.equal(alone[0]?.parentId, undefined);
    assert.equal(alone[0]?.instruction, undefined);
    assert.equal(alone[0]?.images.length, 1);
  });

  test('two refinements from the website: the strip lists three versions in order, each with its instruction', async () => {
    const second = await turn({
      prompt: 'make it dusk',
      instruction: 'make it dusk',
      parentId: first.taskId,
    });
    const third = await turn({ prompt: 'add a boat', instruction: 'add a boat', parentId: second.taskId });
    const chain = await list(second.generationId);
    assert.deepEqual(
      chain.map((v) => [v.id, v.parentId, v.parentTaskId, v.instruction]),
      [
        [first.generationId, undefined, undefined, undefined],
        [second.generationId, first.generationId, first.taskId, 'make it dusk'],
        [third.generationId, second.generationId, second.taskId, 'add a boat'],
      ],
    );
    // The same chain from either end; each version keeps the parent's aspect.
    assert.deepEqual(
      (await list(first.generationId)).map((v) => v.id),
      chain.map((v) => v.id),
    );
    const works = (
      await t.app.inject({ method: 'GET', url: '/web/api/works', headers: { cookie } })
    ).json() as { items: Array<{ id: string; aspect: string; parentId?: string; instruction?: string }> };
    const thirdWork = works.items.find((w) => w.id === third.generationId);
    assert.equal(thirdWork?.aspect, '3:4');
    assert.equal(thirdWork?.parentId, second.generationId);
    assert.equal(thirdWork?.instruction, 'add a boat');

    // Deleting the middle version keeps its parent and its child; the strip marks it removed.
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/web/api/works/${second.generationId}`,
      headers: web(),
    });
    assert.equal(deleted.statusCode, 204, deleted.body);
    const after = await list(third.generationId);
    assert.deepEqual(
      after.map((v) => [v.id, v.removed ?? false]),
      [
        [first.generationId, false],
        [second.generationId, true],
        [third.generationId, false],
      ],
    );
    // The removed version's own link is gone, its versions still answer.
    assert.equal(
      (
        await t.app.inject({
          method: 'GET',
          url: `/web/api/works/${second.generationId}`,
          headers: { cookie },
        })
      ).statusCode,
      404,
    );
    assert.equal((await versions(second.generationId)).statusCode, 200);
  });

  test('refusals: another account’s work is a 400 naming parentId, its versions a 404; no session is a 401', async () => {
    const foreign = assertError(
      await generate({ prompt: 'x', parentId: first.taskId }, { cookie: otherCookie, origin: TEST_ORIGIN }),
      400,
      'invalid_request',
    );
    assert.match(foreign, /^parentId /);
    assertError(await versions(first.generationId, otherCookie), 404, 'not_found');
    assertError(await versions('gen_unknown'), 404, 'not_found');
    const signedOut = await t.app.inject({
      method: 'GET',
      url: `/web/api/works/${first.generationId}/versions`,
    });
    assertError(signedOut, 401, 'unauthorized');
    // A cross-site refine is refused before anything is made.
    assertError(await generate({ prompt: 'x', parentId: first.taskId }, { cookie }), 403, 'forbidden');
  });
});
