import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { assertError, bearer, makePng } from '../support/api-helpers.js';
import { startTestS3, type TestS3 } from '../support/s3-server.js';
import { createTestApp, freePort, type TestApp } from '../support/test-server.js';

const PREFIX = 'atelier/v1';

interface TaskRecord {
  task_id: string;
  status: string;
  imageUrl?: string;
  error?: string;
}

/** Follows a task by long-poll (the server answers when the task changes) until it is final. */
async function untilFinal(app: FastifyInstance, apiKey: string, taskId: string): Promise<TaskRecord> {
  for (let round = 0; round < 100; round++) {
    const response = await app.inject({
      method: 'GET',
      url: `/api/v1/tasks/${taskId}?wait=30`,
      headers: bearer(apiKey),
    });
    assert.equal(response.statusCode, 200, response.body);
    const record = response.json() as TaskRecord;
    if (record.status === 'completed' || record.status === 'failed') return record;
  }
  throw new Error(`task ${taskId} never finished`);
}

/** The blob key of one of this deployment's `/files/…` URLs. */
function keyOf(url: string): string {
  const { pathname } = new URL(url);
  assert.match(pathname, /^\/files\//);
  return pathname.slice('/files/'.length);
}

describe('S3 storage: results and uploads in the bucket, /files served by any node', () => {
  let s3: TestS3;
  /** Runs the engine: it renders, and writes results to the bucket. */
  let worker: TestApp;
  /** Another node on the same bucket (its own database): it only serves /files. */
  let other: TestApp;
  /** A node that redirects /files to presigned URLs. */
  let redirecting: TestApp;
  let apiKey: string;

  before(async () => {
    s3 = await startTestS3();
    const env = s3.env(PREFIX);
    worker = await createTestApp({ env });
    other = await createTestApp({ env, startEngine: false });
    redirecting = await createTestApp({
      env: { ...env, ATELIER_FILES_REDIRECT: 'true' },
      startEngine: false,
    });
    ({ apiKey } = await worker.createAccount());
  });
  after(async () => {
    await Promise.all([worker?.close(), other?.close(), redirecting?.close()]);
    await s3?.close();
  });

  let resultKey: string;
  let resultBytes: Buffer;
  let resultEtag: string;

  test('generate: the completed result is in the bucket and another node serves it (ETag, immutable, 304)', async () => {
    const generated = await worker.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt: 'a lighthouse in the fog', imageSize: '1K' },
    });
    assert.equal(generated.statusCode, 200, generated.body);
    const taskId = generated.json().task_ids[0] as string;
    const final = await untilFinal(worker.app, apiKey, taskId);
    assert.equal(final.status, 'completed', final.error);
    assert.ok(final.imageUrl);
    resultKey = keyOf(final.imageUrl);
    assert.ok(await s3.hasObject(`${PREFIX}/${resultKey}`), `${PREFIX}/${resultKey} in the bucket`);

    const served = await other.app.inject({ method: 'GET', url: `/files/${resultKey}` });
    assert.equal(served.statusCode, 200);
    assert.equal(served.headers['content-type'], 'image/png');
    assert.equal(served.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(served.headers['x-content-type-options'], 'nosniff');
    resultBytes = served.rawPayload;
    assert.equal(served.headers['content-length'], String(resultBytes.length));
    assert.deepEqual(
      resultBytes.subarray(0, 8),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );
    resultEtag = String(served.headers.etag);
    assert.match(resultEtag, /^"[^"]+"$/);

    // The ETag comes from the object, so every node answers the same one.
    const fromWorker = await worker.app.inject({ method: 'HEAD', url: `/files/${resultKey}` });
    assert.equal(fromWorker.headers.etag, resultEtag);
    assert.equal(fromWorker.statusCode, 200);
    assert.equal(fromWorker.headers['content-length'], String(resultBytes.length));
    assert.equal(fromWorker.rawPayload.length, 0);

    const revalidated = await other.app.inject({
      method: 'GET',
      url: `/files/${resultKey}`,
      headers: { 'if-none-match': resultEtag },
    });
    assert.equal(revalidated.statusCode, 304);
    assert.equal(revalidated.rawPayload.length, 0);
    assert.equal(revalidated.headers.etag, resultEtag);
    const changed = await other.app.inject({
      method: 'GET',
      url: `/files/${resultKey}`,
      headers: { 'if-none-match': '"something-else"' },
    });
    assert.equal(changed.statusCode, 200);
    assert.deepEqual(changed.rawPayload, resultBytes);
  });

  test('uploads land in the bucket, are served by another node, and feed an edit from the bucket', async () => {
    const png = await makePng(120, 80);
    const uploaded = await worker.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': 'image/png' },
      payload: png,
    });
    assert.equal(uploaded.statusCode, 200, uploaded.body);
    const { url, filename } = uploaded.json() as { url: string; filename: string };
    assert.equal(keyOf(url), `uploads/${filename}`);
    assert.ok(await s3.hasObject(`${PREFIX}/uploads/${filename}`));

    const served = await other.app.inject({ method: 'GET', url: `/files/uploads/${filename}` });
    assert.equal(served.statusCode, 200);
    assert.deepEqual(served.rawPayload, png);

    const edit = await worker.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt: 'at night', mode: 'edit', imageUrls: [url], imageSize: '1K', aspect: '3:2' },
    });
    assert.equal(edit.statusCode, 200, edit.body);
    const final = await untilFinal(worker.app, apiKey, edit.json().task_ids[0]);
    assert.equal(final.status, 'completed', final.error);
    assert.ok(final.imageUrl);
    assert.ok(await s3.hasObject(`${PREFIX}/${keyOf(final.imageUrl)}`));
  });

  test('ATELIER_FILES_REDIRECT=true: a redirect to a presigned URL that the S3 server serves', async () => {
    const answer = await redirecting.app.inject({ method: 'GET', url: `/files/${resultKey}` });
    assert.equal(answer.statusCode, 302);
    assert.equal(answer.headers['cache-control'], 'private, max-age=60');
    const location = String(answer.headers.location);
    assert.ok(
      location.startsWith(`${s3.endpoint}/${s3.bucket}/${PREFIX}/${resultKey}?`),
      `path-style URL of the object: ${location}`,
    );
    assert.ok(new URL(location).searchParams.has('X-Amz-Signature'));

    const fetched = await fetch(location);
    assert.equal(fetched.status, 200);
    assert.deepEqual(Buffer.from(await fetched.arrayBuffer()), resultBytes);

    const revalidated = await redirecting.app.inject({
      method: 'GET',
      url: `/files/${resultKey}`,
      headers: { 'if-none-match': resultEtag },
    });
    assert.equal(revalidated.statusCode, 304);
  });

  test('absent and malformed keys: 404 not_found in the error shape, streamed or redirected', async () => {
    for (const node of [other, redirecting]) {
      for (const url of ['/files/results/tsk_nothing.png', '/files/nope.txt', '/files/..%2Fsecret.png']) {
        assertError(await node.app.inject({ method: 'GET', url }), 404, 'not_found');
      }
      assertError(
        await node.app.inject({
          method: 'GET',
          url: '/files/results/tsk_nothing.png',
          headers: { 'if-none-match': '*' },
        }),
        404,
        'not_found',
      );
    }
  });

  test('an unreachable store is a 500 internal_error that does not leak the store address', async () => {
    const env = { ...s3.env(PREFIX), ATELIER_S3_ENDPOINT: `http://127.0.0.1:${await freePort()}` };
    const cut = await createTestApp({ env, startEngine: false });
    try {
      const message = assertError(
        await cut.app.inject({ method: 'GET', url: `/files/${resultKey}` }),
        500,
        'internal_error',
      );
      assert.doesNotMatch(message, /127\.0\.0\.1|ECONNREFUSED|bucket/i);
    } finally {
      await cut.close();
    }
  });

  test("nothing was written under any node's data dir blobs folder", () => {
    for (const node of [worker, other, redirecting]) {
      assert.equal(existsSync(join(node.dataDir, 'blobs')), false, node.dataDir);
    }
  });
});
