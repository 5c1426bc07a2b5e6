import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { BlobStore } from '../../../src/infra/blobs/blob-store.js';
import { createS3BlobStore, createS3Client } from '../../../src/infra/blobs/s3-blob-store.js';
import { startTestS3, type TestS3 } from '../../support/s3-server.js';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('S3 blob store against a real S3-speaking server on loopback', () => {
  let s3: TestS3;
  let store: BlobStore;
  let workDir: string;

  before(async () => {
    s3 = await startTestS3();
    store = createS3BlobStore({ client: s3.client, bucket: s3.bucket, prefix: 'tenant/images' });
    workDir = await mkdtemp(join(tmpdir(), 'atelier-s3-unit-'));
  });
  after(async () => {
    await s3.close();
    await rm(workDir, { recursive: true, force: true });
  });

  test('put from a buffer, then get, stat and open agree; the key lands under the prefix', async () => {
    const bytes = randomBytes(1000);
    await store.put('results/tsk_one.png', bytes, 'image/png');

    assert.deepEqual(await store.get('results/tsk_one.png'), bytes);
    const stat = await store.stat('results/tsk_one.png');
    assert.ok(stat);
    assert.equal(stat.bytes, 1000);
    assert.equal(stat.contentType, 'image/png');
    // S3's ETag of a single PUT: the quoted MD5 of the bytes, the same from every node.
    assert.equal(stat.etag, `"${createHash('md5').update(bytes).digest('hex')}"`);
    assert.ok(stat.modifiedAt > 0);

    const opened = await store.open('results/tsk_one.png');
    assert.ok(opened);
    assert.deepEqual(opened.stat, stat);
    assert.deepEqual(await readAll(opened.stream), bytes);

    assert.ok(await s3.hasObject('tenant/images/results/tsk_one.png'));
  });

  test('put from a file streams it: the SDK gets a file stream and sends one plain PUT of its length', async () => {
    const path = join(workDir, 'upload.bin');
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    await writeFile(path, bytes);
    const client = createS3Client({
      region: 'us-east-1',
      endpoint: s3.endpoint,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    const sent: { body: unknown; headers: Record<string, string> }[] = [];
    client.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { body: unknown; headers: Record<string, string> };
        sent.push({ body: request.body, headers: { ...request.headers } });
        return next(args);
      },
      { step: 'finalizeRequest', priority: 'low' },
    );
    const streaming = createS3BlobStore({ client, bucket: s3.bucket, prefix: 'tenant/images' });
    await streaming.put('uploads/big.webp', { path }, 'image/webp');
    client.destroy();

    const [put] = sent;
    assert.ok(put);
    assert.ok(put.body instanceof Readable, 'the request body is a stream, not a buffer of the file');
    assert.equal(put.headers['content-length'], String(bytes.length));
    assert.equal(put.headers['content-encoding'], undefined, 'no aws-chunked framing');

    assert.deepEqual(await store.get('uploads/big.webp'), bytes);
    assert.equal((await store.stat('uploads/big.webp'))?.contentType, 'image/webp');
  });

  test('absent keys: get, open, stat and signedUrl say undefined; delete is a no-op', async () => {
    assert.equal(await store.get('results/missing.png'), undefined);
    assert.equal(await store.open('results/missing.png'), undefined);
    assert.equal(await store.stat('results/missing.png'), undefined);
    assert.equal(await store.signedUrl?.('results/missing.png', 60), undefined);
    await store.delete('results/missing.png');
  });

  test('only well-formed keys reach the bucket', async () => {
    for (const bad of ['../escape.png', '/abs.png', 'results/x.exe', 'a//b.png']) {
      assert.equal(await store.stat(bad), undefined, bad);
      assert.equal(await store.get(bad), undefined, bad);
      await assert.rejects(store.put(bad, Buffer.from('x'), 'image/png'), /invalid blob key/, bad);
    }
  });

  test('delete removes the object', async () => {
    await store.put('results/gone.png', Buffer.from('bye'), 'image/png');
    assert.ok(await store.stat('results/gone.png'));
    await store.delete('results/gone.png');
    assert.equal(await store.stat('results/gone.png'), undefined);
    assert.equal(await s3.hasObject('tenant/images/results/gone.png'), false);
  });

  test('the prefix is honoured both ways: other prefixes and the bucket root are not visible', async () => {
    await store.put('results/mine.png', Buffer.from('mine'), 'image/png');
    const other = createS3BlobStore({ client: s3.client, bucket: s3.bucket, prefix: 'other' });
    const root = createS3BlobStore({ client: s3.client, bucket: s3.bucket, prefix: '' });
    assert.equal(await other.stat('results/mine.png'), undefined);
    assert.equal(await root.stat('results/mine.png'), undefined);

    await root.put('results/at-root.png', Buffer.from('root'), 'image/png');
    assert.ok(await s3.hasObject('results/at-root.png'));
    assert.equal(await store.stat('results/at-root.png'), undefined);

    // An object someone else wrote under the prefix is read with the key's content type.
    await s3.client.send(
      new PutObjectCommand({
        Bucket: s3.bucket,
        Key: 'tenant/images/uploads/foreign.jpg',
        Body: Buffer.from('jpeg bytes'),
        ContentType: 'text/html',
      }),
    );
    assert.equal((await store.stat('uploads/foreign.jpg'))?.contentType, 'image/jpeg');
  });

  test('with an endpoint, addressing is path-style: the presigned URL is {endpoint}/{bucket}/{prefix}/{key}', async () => {
    const bytes = randomBytes(64);
    await store.put('results/signed.gif', bytes, 'image/gif');
    const url = await store.signedUrl?.('results/signed.gif', 60);
    assert.ok(url);
    const parsed = new URL(url);
    assert.equal(parsed.origin, s3.endpoint);
    assert.equal(parsed.pathname, `/${s3.bucket}/tenant/images/results/signed.gif`);
    assert.equal(parsed.searchParams.get('X-Amz-Expires'), '60');

    const served = await fetch(url);
    assert.equal(served.status, 200);
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), bytes);

    // The server checks signatures: the URL is only good as signed.
    parsed.searchParams.set('X-Amz-Signature', '0'.repeat(64));
    const forged = await fetch(parsed);
    assert.equal(forged.status, 403);
    await forged.arrayBuffer();
  });

  test('a missing bucket is an error, not an absent blob', async () => {
    const nowhere = createS3BlobStore({ client: s3.client, bucket: 'no-such-bucket', prefix: '' });
    await assert.rejects(nowhere.get('results/x.png'), /bucket/i);
  });
});
