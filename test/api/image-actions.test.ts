import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { DEFAULT_CATALOG } from '../../src/capabilities/catalog/index.js';
import { bearer, pollUntilFinal, submitGenerate } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

// Actions on a picked image (issue 45) through /api/v1 on the offline renderer: each a linked task
// (parent, action, settings in history and versions), its pixels checked; seeds; refusals. One
// long-lived app, actions one after another on the same works.
describe('actions on a finished image', () => {
  let t: TestApp;
  let apiKey: string;
  let otherKey: string;
  let work: { generationId: string; taskId: string; width: number; height: number };

  type Item = Record<string, unknown> & { id: string; images: string[] };
  const historyItems = async (key = apiKey) =>
    (await t.app.inject({ method: 'GET', url: '/api/v1/history?limit=50', headers: bearer(key) })).json()
      .items as Item[];
  const act = (
    id: string,
    payload: Record<string, unknown>,
    key = apiKey,
    headers: Record<string, string> = {},
  ) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/generations/${id}/actions`,
      headers: { ...bearer(key), ...headers },
      payload,
    });
  const fileOf = async (url: string) => {
    const answer = await t.app.inject({ method: 'GET', url: new URL(url).pathname });
    assert.equal(answer.statusCode, 200, url);
    return answer.rawPayload;
  };

  /** Runs an action to its end: the new work's history item and its first image's bytes and record. */
  async function acted(id: string, payload: Record<string, unknown>) {
    const answer = await act(id, payload);
    assert.equal(answer.statusCode, 200, answer.body);
    const taskIds = answer.json().task_ids as string[];
    const finals = [];
    for (const taskId of taskIds) {
      const { final } = await pollUntilFinal(t.app, apiKey, taskId);
      assert.equal(final.status, 'completed', JSON.stringify(final));
      finals.push(final);
    }
    const first = finals[0] as (typeof finals)[number];
    const item = (await historyItems()).find((i) => i.images.includes(first.imageUrl ?? ''));
    assert.ok(item, 'the new work is in history');
    return {
      item,
      taskIds,
      record: first as typeof first & { seed?: number; parentTaskId?: string },
      bytes: await fileOf(first.imageUrl ?? ''),
    };
  }

  async function generated(payload: Record<string, unknown>) {
    const [taskId] = await submitGenerate(t.app, apiKey, { model: 'flash2', imageSize: '1K', ...payload });
    assert.ok(taskId);
    const { final } = await pollUntilFinal(t.app, apiKey, taskId);
    assert.equal(final.status, 'completed', JSON.stringify(final));
    const item = (await historyItems()).find((i) => i.images.includes(final.imageUrl ?? ''));
    assert.ok(item);
    return {
      item,
      taskId,
      record: final as typeof final & { seed?: number },
      bytes: await fileOf(final.imageUrl ?? ''),
    };
  }

  before(async () => {
    t = await createTestApp();
    ({ apiKey } = await t.createAccount());
    ({ apiKey: otherKey } = await t.createAccount());
    // A history of mixed shapes first; a long prompt; a failure.
    await generated({ prompt: 'a lighthouse in fog, charcoal '.repeat(60).trim(), aspect: '16:9' });
    await submitGenerate(t.app, apiKey, { prompt: 'this one fails [[fail]]' });
    const made = await generated({ prompt: 'three red balloons over a field', aspect: '3:2' });
    const meta = await sharp(made.bytes).metadata();
    work = {
      generationId: made.item.id,
      taskId: made.taskId,
      width: meta.width ?? 0,
      height: meta.height ?? 0,
    };
  });
  after(() => t.close());

  test('the model list offers the configured actions, not their routes as models; each model says whether it takes seeds', async () => {
    const list = (
      await t.app.inject({ method: 'GET', url: '/api/v1/models', headers: bearer(apiKey) })
    ).json();
    const ids = (list.data as Array<{ id: string; seeds: boolean }>).map((m) => m.id);
    assert.deepEqual(ids, ['base-image-2', 'pro', 'flash2', 'flash']);
    assert.ok((list.data as Array<{ seeds: boolean }>).every((m) => m.seeds === true));
    const actions = list.actions as Array<{ action: string; model: string | null; scales?: number[] }>;
    assert.deepEqual(
      actions.map((a) => a.action),
      ['reroll', 'upscale', 'vary', 'expand', 'remove_background'],
    );
    assert.deepEqual(actions.find((a) => a.action === 'upscale')?.scales, [2, 4]);
    // An action's route is not a model to generate with.
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt: 'x', model: 'upscale', mode: 'edit', imageUrls: ['https://images.example/a.png'] },
    });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.json().error.message, /^model upscale is the route of the action upscale/);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/models/upscale', headers: bearer(apiKey) }))
        .statusCode,
      404,
    );
  });

  test('upscale ×2 by the work id and ×4 by the image id: the pixels per side double and quadruple; the new work names its parent and the action', async () => {
    const twice = await acted(work.generationId, { action: 'upscale' });
    const meta2 = await sharp(twice.bytes).metadata();
    assert.deepEqual([meta2.width, meta2.height], [work.width * 2, work.height * 2]);
    assert.equal(twice.item.parentId, work.generationId);
    assert.equal(twice.item.parentTaskId, work.taskId);
    assert.equal(twice.item.action, 'upscale');
    assert.deepEqual(twice.item.actionOptions, { scale: 2 });
    assert.equal(twice.item.instruction, 'Upscale ×2');
    assert.equal(twice.item.prompt, 'three red balloons over a field');
    assert.equal(twice.record.parentTaskId, work.taskId);

    const four = await acted(work.taskId, { action: 'upscale', scale: 4 });
    const meta4 = await sharp(four.bytes).metadata();
    assert.deepEqual([meta4.width, meta4.height], [work.width * 4, work.height * 4]);
    // The upscale resembles its source: shrunk back, it is close to the original.
    const back = await sharp(four.bytes).resize(work.width, work.height).removeAlpha().raw().toBuffer();
    const original = await sharp(
      await fileOf(String((await historyItems()).find((i) => i.id === work.generationId)?.images[0])),
    )
      .removeAlpha()
      .raw()
      .toBuffer();
    let diff = 0;
    for (let i = 0; i < back.length; i++) diff += Math.abs((back[i] ?? 0) - (original[i] ?? 0));
    assert.ok(diff / back.length < 12, `mean difference ${diff / back.length}`);
  });

  test('remove_background: a PNG with transparency, the picture’s shapes kept opaque', async () => {
    const cut = await acted(work.taskId, { action: 'remove_background' });
    const { data, info } = await sharp(cut.bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    assert.equal((await sharp(cut.bytes).metadata()).format, 'png');
    assert.equal((await sharp(cut.bytes).metadata()).hasAlpha, true);
    let clear = 0;
    let opaque = 0;
    for (let i = 3; i < data.length; i += 4) {
      if (data[i] === 0) clear++;
      else if (data[i] === 255) opaque++;
    }
    const pixels = info.width * info.height;
    assert.ok(clear > pixels * 0.1, `transparent share ${clear / pixels}`);
    assert.ok(opaque > pixels * 0.02, `opaque share ${opaque / pixels}`);
    assert.equal(cut.item.action, 'remove_background');
  });

  test('expand by 1.5 and to 16:9: the canvas grows, the original pixels stay exactly in place', async () => {
    const original = await sharp(
      await fileOf(String((await historyItems()).find((i) => i.id === work.generationId)?.images[0])),
    )
      .ensureAlpha()
      .raw()
      .toBuffer();
    for (const [payload, size] of [
      [{ action: 'expand' }, { width: work.width * 1.5, height: work.height * 1.5 }],
      [
        { action: 'expand', aspect: '16:9' },
        { width: Math.round((work.height * 16) / 9 / 2) * 2, height: work.height },
      ],
    ] as const) {
      const grown = await acted(work.taskId, payload);
      const meta = await sharp(grown.bytes).metadata();
      assert.deepEqual([meta.width, meta.height], [size.width, size.height]);
      const left = Math.floor((size.width - work.width) / 2);
      const top = Math.floor((size.height - work.height) / 2);
      const kept = await sharp(grown.bytes)
        .ensureAlpha()
        .extract({ left, top, width: work.width, height: work.height })
        .raw()
        .toBuffer();
      assert.ok(kept.equals(original), `the picture is kept in place (${JSON.stringify(payload)})`);
      assert.equal(grown.item.action, 'expand');
    }
  });

  test('vary subtle and strong, two images: linked, seeded, different from the source and from each other', async () => {
    const subtle = await acted(work.taskId, { action: 'vary', count: 2 });
    assert.equal(subtle.taskIds.length, 2);
    assert.deepEqual(subtle.item.actionOptions, { strength: 'subtle' });
    // History keeps the work's own prompt; the variation's wording goes only upstream.
    assert.equal(subtle.item.prompt, 'three red balloons over a field');
    assert.equal(typeof subtle.item.seed, 'number');
    const strong = await acted(work.taskId, { action: 'vary', strength: 'strong', seed: 7 });
    assert.equal(strong.item.seed, 7);
    assert.equal(strong.record.seed, 7);
    assert.ok(!subtle.bytes.equals(strong.bytes));
  });

  test('seeds: the same seed gives byte-identical images, another seed a different one; reroll draws a new seed', async () => {
    const payload = { prompt: 'a paper boat on a puddle', aspect: '1:1' };
    const a = await generated({ ...payload, seed: 1234 });
    const b = await generated({ ...payload, seed: 1234 });
    const c = await generated({ ...payload, seed: 1235 });
    assert.ok(a.bytes.equals(b.bytes), 'the same seed, the same image');
    assert.ok(!a.bytes.equals(c.bytes), 'another seed, another image');
    assert.equal(a.item.seed, 1234);
    assert.equal(a.record.seed, 1234);

    const rerolled = await acted(a.taskId, { action: 'reroll' });
    assert.equal(rerolled.item.action, 'reroll');
    assert.equal(rerolled.item.parentTaskId, a.taskId);
    assert.equal(rerolled.item.prompt, payload.prompt);
    assert.equal(rerolled.item.aspect, '1:1');
    assert.notEqual(rerolled.item.seed, 1234);
    assert.ok(!rerolled.bytes.equals(a.bytes));
    // Asked with the original seed, the reroll is the original again.
    const again = await acted(a.taskId, { action: 'reroll', seed: 1234 });
    assert.ok(again.bytes.equals(a.bytes));
  });

  test('every action is a version of the work; the Idempotency-Key replays the same tasks', async () => {
    const versions = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/history/${work.generationId}/versions`,
        headers: bearer(apiKey),
      })
    ).json().versions as Item[];
    const actions = versions.map((v) => v.action).filter(Boolean);
    for (const action of ['upscale', 'remove_background', 'expand', 'vary'])
      assert.ok(actions.includes(action), `${action} is a version`);
    const headers = { 'idempotency-key': 'upscale-once' };
    const first = await act(work.taskId, { action: 'upscale' }, apiKey, headers);
    const second = await act(work.taskId, { action: 'upscale' }, apiKey, headers);
    assert.equal(first.statusCode, 200);
    assert.deepEqual(second.json(), first.json());
  });

  test('refusals: another account’s work is 404, settings of another action and out of range are 400 naming the field', async () => {
    for (const id of [work.generationId, work.taskId, 'gen_nope', 'tsk_nope']) {
      const answer = await act(id, { action: 'upscale' }, otherKey);
      assert.equal(answer.statusCode, 404, id);
      assert.equal(answer.json().error.type, 'not_found');
    }
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ action: 'vary', scale: 2 }, /^scale is not taken by action vary/],
      [{ action: 'upscale', scale: 3 }, /scale/],
      [{ action: 'expand', factor: 3 }, /factor/],
      [{ action: 'expand', aspect: 'wide' }, /^aspect must look like W:H/],
      [{ action: 'upscale', model: 'vary' }, /^model vary is not a route of action upscale/],
      [{ action: 'nudge' }, /action/],
      [{ action: 'reroll', seed: -1 }, /seed/],
    ];
    for (const [payload, message] of cases) {
      const answer = await act(work.taskId, payload);
      assert.equal(answer.statusCode, 400, JSON.stringify(payload));
      assert.equal(answer.json().error.type, 'invalid_request');
      assert.match(answer.json().error.message, message);
    }
  });
});

describe('actions a catalog does not configure, and models without seeds', () => {
  let t: TestApp;
  let apiKey: string;

  before(async () => {
    // The default catalog without its remove-background route, and a model whose upstream takes no seed.
    const catalog = {
      models: [
        ...DEFAULT_CATALOG.models.filter((m) => m.action !== 'remove_background'),
        { ...DEFAULT_CATALOG.models[0], id: 'seedless', aliases: [], seeds: false },
      ],
    };
    const dir = await import('node:os').then((os) => os.tmpdir());
    const path = join(dir, `atelier-actions-catalog-${process.pid}.json`);
    await writeFile(path, JSON.stringify(catalog));
    t = await createTestApp({ env: { ATELIER_CATALOG: path } });
    ({ apiKey } = await t.createAccount());
  });
  after(() => t.close());

  test('an action whose route is missing is not offered and is refused by name; a seed on a seedless model is refused', async () => {
    const list = (
      await t.app.inject({ method: 'GET', url: '/api/v1/models', headers: bearer(apiKey) })
    ).json();
    const offered = (list.actions as Array<{ action: string }>).map((a) => a.action);
    assert.ok(!offered.includes('remove_background'));
    assert.ok(offered.includes('upscale'));
    const [taskId] = await submitGenerate(t.app, apiKey, { prompt: 'a kite', model: 'seedless' });
    assert.ok(taskId);
    const { final } = await pollUntilFinal(t.app, apiKey, taskId);
    assert.equal(final.status, 'completed');
    assert.equal(
      (final as { seed?: number }).seed,
      undefined,
      'no seed is recorded where the route takes none',
    );
    const refused = await t.app.inject({
      method: 'POST',
      url: `/api/v1/generations/${taskId}/actions`,
      headers: bearer(apiKey),
      payload: { action: 'remove_background' },
    });
    assert.equal(refused.statusCode, 400);
    assert.match(
      refused.json().error.message,
      /^action remove_background is not configured on this deployment/,
    );
    const seeded = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt: 'a kite', model: 'seedless', seed: 5 },
    });
    assert.equal(seeded.statusCode, 400);
    assert.match(seeded.json().error.message, /^seed: model seedless takes no seed/);
    // A reroll of a seedless work still makes a new image (the upstream's own randomness), with no seed.
    const rerolled = await t.app.inject({
      method: 'POST',
      url: `/api/v1/generations/${taskId}/actions`,
      headers: bearer(apiKey),
      payload: { action: 'reroll' },
    });
    assert.equal(rerolled.statusCode, 200, rerolled.body);
  });
});
