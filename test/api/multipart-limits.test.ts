import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, bearer, makePng } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

// Issue 25, item 19: a form over a part limit is a 400 naming the limit, not a 413 for a body of
// a few hundred bytes. Over real HTTP (fetch's FormData), as a form tool would send it.

/** A form of `extra` text fields and a png, the fields before or after the image part. */
async function formWith(
  extra: number,
  imageName: string,
  fieldsFirst: boolean,
  base: [string, string][] = [],
) {
  const form = new FormData();
  const fields = () => {
    for (const [name, value] of base) form.append(name, value);
    for (let i = 0; i < extra; i++) form.append(`extra_${i}`, 'x');
  };
  if (fieldsFirst) fields();
  form.append(imageName, new Blob([new Uint8Array(await makePng(16, 16))], { type: 'image/png' }), 'a.png');
  if (!fieldsFirst) fields();
  return form;
}

describe('multipart forms over their part limits (real HTTP)', () => {
  let t: TestApp;
  let apiKey: string;

  before(async () => {
    t = await createTestApp({ listen: true });
    ({ apiKey } = await t.createAccount());
  });
  after(() => t.close());

  const post = (path: string, body: FormData) =>
    fetch(`${t.baseUrl}${path}`, { method: 'POST', headers: bearer(apiKey), body });

  test('/api/v1/upload: up to 5 fields before the file are read, a 6th is a 400 naming the limit; parts after it are ignored', async () => {
    const ok = await post('/api/v1/upload', await formWith(5, 'file', true));
    assert.equal(ok.status, 200, await ok.clone().text());
    const over = await post('/api/v1/upload', await formWith(6, 'file', true));
    const body = await over.json();
    assertError({ statusCode: over.status, headers: {}, json: () => body }, 400, 'invalid_request');
    assert.equal(body.error.message, 'The form has more than 5 text fields; at most 5 are read');
    // The upload is the first file part: what follows it is not read (like unknown JSON fields).
    const trailing = await formWith(40, 'file', false);
    trailing.append('other', new Blob([new Uint8Array(await makePng(8, 8))], { type: 'image/png' }), 'b.png');
    const ignored = await post('/api/v1/upload', trailing);
    assert.equal(ignored.status, 200, await ignored.clone().text());
  });

  test("/v1/images/edits: 30 text fields are read; 31 is a 400 in OpenAI's shape naming the limit", async () => {
    const base: [string, string][] = [['prompt', 'a small edit']];
    const over = await post('/v1/images/edits', await formWith(30, 'image', true, base));
    const body = await over.json();
    assert.equal(over.status, 400, JSON.stringify(body));
    assert.deepEqual(body, {
      error: {
        message: 'The form has more than 30 text fields; at most 30 are read',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_request',
      },
    });
    const ok = await post('/v1/images/edits', await formWith(29, 'image', true, base));
    assert.equal(ok.status, 200, await ok.clone().text());
  });
});
