import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { bmpOfSize } from '../fakes/image-fixtures.js';
import { assertError, bearer, makePng, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

describe('POST /api/v1/generate', () => {
  let t: TestApp;
  let apiKey: string;
  let email: string;

  before(async () => {
    t = await createTestApp();
    ({ apiKey, email } = await t.createAccount());
  });
  after(() => t.close());

  const generate = (payload: unknown, headers: Record<string, string> = bearer(apiKey)) =>
    t.app.inject({ method: 'POST', url: '/api/v1/generate', headers, payload: payload as object });

  test('happy: defaults → one task, queued then in_progress with rising progress, then completed with a 2K 1:1 PNG', async () => {
    const response = await generate({ prompt: 'a lighthouse at dawn' });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.deepEqual(Object.keys(body).sort(), ['email', 'task_ids']);
    assert.equal(body.email, email);
    assert.equal(body.task_ids.length, 1);
    assert.match(body.task_ids[0], /^tsk_[A-Za-z0-9_-]{22,}$/);

    const { final, seen } = await pollUntilFinal(t.app, apiKey, body.task_ids[0]);
    assert.equal(final.status, 'completed');
    assert.equal(final.progress, 100);
    assert.ok(final.imageUrl?.startsWith(`${t.baseUrl}/files/results/`));
    assert.equal(final.error, undefined);
    // progress never decreases, and states only move forward
    const order = ['queued', 'in_progress', 'completed'];
    for (let i = 1; i < seen.length; i++) {
      const prev = seen[i - 1];
      const cur = seen[i];
      assert.ok(prev && cur);
      assert.ok(cur.progress >= prev.progress, `progress ${prev.progress} → ${cur.progress}`);
      assert.ok(order.indexOf(cur.status) >= order.indexOf(prev.status));
      if (cur.status !== 'completed') assert.equal(cur.imageUrl, undefined);
    }
    const file = await t.app.inject({ method: 'GET', url: new URL(final.imageUrl ?? '').pathname });
    assert.equal(file.statusCode, 200);
    assert.equal(file.headers['content-type'], 'image/png');
    const meta = await sharp(file.rawPayload).metadata();
    assert.equal(meta.width, 2048);
    assert.equal(meta.height, 2048);
  });

  test('happy: count 3 gives three tasks and one history item; size and aspect give the exact pixel size', async () => {
    const response = await generate({
      prompt: 'three moons',
      count: 3,
      aspect: '16:9',
      imageSize: '1K',
      model: 'flash',
    });
    assert.equal(response.statusCode, 200);
    const ids: string[] = response.json().task_ids;
    assert.equal(ids.length, 3);
    assert.equal(new Set(ids).size, 3);
    const finals = await Promise.all(ids.map((id) => pollUntilFinal(t.app, apiKey, id)));
    const images = await Promise.all(
      finals.map(async ({ final }) => {
        const file = await t.app.inject({ method: 'GET', url: new URL(final.imageUrl ?? '').pathname });
        return file.rawPayload;
      }),
    );
    for (const image of images) {
      const meta = await sharp(image).metadata();
      assert.equal(meta.width, 1360);
      assert.equal(meta.height, 768);
    }
    // each image of a generation differs
    assert.notDeepEqual(images[0], images[1]);
    const history = await t.app.inject({
      method: 'GET',
      url: '/api/v1/history?limit=1',
      headers: bearer(apiKey),
    });
    const item = history.json().items[0];
    assert.equal(item.prompt, 'three moons');
    assert.equal(item.imageCount, 3);
    assert.equal(item.model, 'flash');
    assert.deepEqual(
      item.images,
      finals.map(({ final }) => final.imageUrl),
    );
  });

  test('the local renderer is deterministic per prompt and seed, and visibly different across prompts', async () => {
    const render = async (prompt: string, seed = 7) => {
      const response = await generate({ prompt, imageSize: '1K', seed });
      const { final } = await pollUntilFinal(t.app, apiKey, response.json().task_ids[0]);
      const file = await t.app.inject({ method: 'GET', url: new URL(final.imageUrl ?? '').pathname });
      return sharp(file.rawPayload).raw().toBuffer();
    };
    const a1 = await render('red fox');
    const a2 = await render('red fox');
    const b = await render('blue whale');
    // Compared as bytes (a failing deepEqual of two 3 MB buffers would build a diff of gigabytes).
    assert.ok(a1.equals(a2), 'the same prompt and seed give the same pixels');
    assert.ok(!a1.equals(await render('red fox', 8)), 'another seed, another picture');
    let differing = 0;
    for (let i = 0; i < a1.length; i += 97) if (Math.abs((a1[i] ?? 0) - (b[i] ?? 0)) > 16) differing++;
    assert.ok(differing > a1.length / 97 / 4, 'different prompts give clearly different images');
  });

  test('happy: edit mode transforms an uploaded reference', async () => {
    const upload = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': 'image/png' },
      payload: await makePng(300, 200),
    });
    assert.equal(upload.statusCode, 200, upload.body);
    const url = upload.json().url;
    const response = await generate({
      prompt: 'make it dusk',
      mode: 'edit',
      imageUrls: [url],
      imageSize: '1K',
      aspect: '3:2',
    });
    assert.equal(response.statusCode, 200, response.body);
    const { final } = await pollUntilFinal(t.app, apiKey, response.json().task_ids[0]);
    assert.equal(final.status, 'completed');
    const history = await t.app.inject({
      method: 'GET',
      url: '/api/v1/history?limit=1',
      headers: bearer(apiKey),
    });
    assert.deepEqual(history.json().items[0].refs, [url]);
    assert.equal(history.json().items[0].mode, 'edit');
  });

  test('edit with a BMP reference: stored as uploaded, decoded for the renderer', async () => {
    const upload = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': 'application/octet-stream' },
      payload: bmpOfSize(120, 90),
    });
    assert.equal(upload.statusCode, 200, upload.body);
    assert.equal(upload.json().content_type, 'image/bmp');
    const response = await generate({
      prompt: 'from a bitmap',
      mode: 'edit',
      imageUrls: [upload.json().url],
      imageSize: '1K',
    });
    const { final } = await pollUntilFinal(t.app, apiKey, response.json().task_ids[0]);
    assert.equal(final.status, 'completed', final.error);
  });

  test('test marker [[fail]]: the task ends failed with an error message and no imageUrl', async () => {
    const response = await generate({ prompt: 'please [[fail]]' });
    assert.equal(response.statusCode, 200);
    const { final } = await pollUntilFinal(t.app, apiKey, response.json().task_ids[0]);
    assert.equal(final.status, 'failed');
    assert.match(final.error ?? '', /fail/i);
    assert.equal(final.imageUrl, undefined);
  });

  test('test marker [[upstream_error]]: 500 upstream_error whose message carries the upstream message', async () => {
    const before = (
      await t.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(apiKey) })
    ).json().total;
    const message = assertError(await generate({ prompt: 'boom [[upstream_error]]' }), 500, 'upstream_error');
    assert.match(message, /simulated upstream error/);
    const afterTotal = (
      await t.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(apiKey) })
    ).json().total;
    assert.equal(afterTotal, before, 'a refused request does not appear in history');
  });

  test('Content-Type with parameters is accepted', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: { ...bearer(apiKey), 'content-type': 'application/json; charset=utf-8' },
      payload: JSON.stringify({ prompt: 'charset', imageSize: '1K' }),
    });
    assert.equal(response.statusCode, 200);
  });

  test('unknown body fields are ignored; null optional fields take their defaults', async () => {
    const response = await generate({
      prompt: 'extra',
      future: { x: 1 },
      model: null,
      count: null,
      imageSize: '1K',
    });
    assert.equal(response.statusCode, 200, response.body);
  });

  describe('400 invalid_request', () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['empty prompt', { prompt: '' }, /prompt/],
      ['whitespace prompt', { prompt: '   \n ' }, /prompt/],
      ['missing prompt', { model: 'pro' }, /prompt/],
      ['prompt not a string', { prompt: 42 }, /prompt must be a string/],
      ['prompt too long', { prompt: 'x'.repeat(8001) }, /8000/],
      ['unknown model', { prompt: 'p', model: 'dall-e-9' }, /Unknown model "dall-e-9".*base-image-2/],
      ['model not a string', { prompt: 'p', model: 5 }, /model must be a string/],
      [
        'mode the model does not support',
        {
          prompt: 'p',
          model: 'flash',
          mode: 'fusion',
          imageUrls: ['https://a.example/1.png', 'https://a.example/2.png'],
        },
        /model flash does not support mode fusion/,
      ],
      ['unknown mode', { prompt: 'p', mode: 'paint' }, /mode must be one of/],
      ['unlisted aspect', { prompt: 'p', aspect: '7:3' }, /accepted: 1:1, 2:3/],
      ['malformed aspect', { prompt: 'p', aspect: 'wide' }, /aspect/],
      ['bad imageSize', { prompt: 'p', imageSize: '8K' }, /imageSize/],
      ['count 0', { prompt: 'p', count: 0 }, /count must be between 1 and 4/],
      ['count over the cap', { prompt: 'p', count: 5 }, /count must be between 1 and 4/],
      ['count fractional', { prompt: 'p', count: 1.5 }, /count must be an integer/],
      ['count as a string', { prompt: 'p', count: '2' }, /count must be an integer/],
      [
        'imageUrls in text mode',
        { prompt: 'p', imageUrls: ['https://a.example/x.png'] },
        /mode text takes no imageUrls/,
      ],
      ['edit without a reference', { prompt: 'p', mode: 'edit' }, /exactly one/],
      [
        'edit with two references',
        { prompt: 'p', mode: 'edit', imageUrls: ['https://a.example/1.png', 'https://a.example/2.png'] },
        /exactly one/,
      ],
      [
        'imageUrls not an array',
        { prompt: 'p', mode: 'edit', imageUrls: 'https://a.example/1.png' },
        /imageUrls must be an array/,
      ],
      [
        'imageUrls entry not a URL',
        { prompt: 'p', mode: 'edit', imageUrls: ['not a url'] },
        /imageUrls\[0\]/,
      ],
      [
        'imageUrls entry not http',
        { prompt: 'p', mode: 'edit', imageUrls: ['file:///etc/passwd'] },
        /imageUrls\[0\] must be an http/,
      ],
      [
        'own URL that does not exist',
        { prompt: 'p', mode: 'edit', imageUrls: ['http://127.0.0.1:8080/files/uploads/nothing.png'] },
        /no such file/,
      ],
      ['body is an array', [1, 2], /JSON object/],
    ];
    for (const [name, payload, pattern] of cases) {
      test(name, async () => {
        const message = assertError(await generate(payload), 400, 'invalid_request');
        assert.match(message, pattern);
      });
    }

    test('body is not JSON', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/generate',
        headers: { ...bearer(apiKey), 'content-type': 'application/json' },
        payload: '{"prompt": ',
      });
      assert.match(assertError(response, 400, 'invalid_request'), /not valid JSON/);
    });

    test('wrong content type', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/generate',
        headers: { ...bearer(apiKey), 'content-type': 'text/plain' },
        payload: 'prompt=hello',
      });
      assert.equal(
        assertError(response, 400, 'invalid_request'),
        'Content-Type text/plain is not accepted; send the body as JSON with Content-Type: application/json',
      );
    });

    test('a JSON object sent as text/plain: the Content-Type is named as the problem', async () => {
      for (const contentType of [
        'text/plain',
        'text/plain; charset=utf-8',
        'application/x-www-form-urlencoded',
      ]) {
        const response = await t.app.inject({
          method: 'POST',
          url: '/api/v1/generate',
          headers: { ...bearer(apiKey), 'content-type': contentType },
          payload: JSON.stringify({ prompt: 'a lighthouse' }),
        });
        assert.equal(
          assertError(response, 400, 'invalid_request'),
          `Content-Type ${contentType.split(';')[0]} is not accepted; send the body as JSON with Content-Type: application/json`,
        );
      }
      // An empty text/plain body is no body: a bodiless POST is judged on its own merits.
      const cancel = await t.app.inject({
        method: 'POST',
        url: '/api/v1/tasks/tsk_unknown/cancel',
        headers: { ...bearer(apiKey), 'content-type': 'text/plain' },
        payload: '',
      });
      assertError(cancel, 404, 'not_found');
    });

    test('no body at all', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/generate',
        headers: bearer(apiKey),
      });
      assertError(response, 400, 'invalid_request');
    });
  });

  test('413 payload_too_large: a JSON body over 1 MB', async () => {
    const response = await generate({ prompt: 'x', padding: 'y'.repeat(1024 * 1024 + 10) });
    assertError(response, 413, 'payload_too_large');
  });

  test('nothing is created by a rejected request', async () => {
    const before = (
      await t.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(apiKey) })
    ).json().total;
    await generate({ prompt: '' });
    await generate({ prompt: 'p', count: 9 });
    const afterTotal = (
      await t.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(apiKey) })
    ).json().total;
    assert.equal(afterTotal, before);
  });
});
