import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { TooLarge } from '../../base/domain/errors.js';
import { writeStreamToTempFile } from './temp-file.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Chunks that each own their memory (as a raw request body's do), and one that shares a buffer. */
function bodyChunks() {
  const owned = [64 * 1024, 64 * 1024, 1000].map((size, i) => Buffer.alloc(size, i + 1));
  const shared = Buffer.alloc(4096, 9).subarray(100, 2100);
  return { owned, shared, all: [...owned, shared] };
}

test('the body lands on disk byte for byte; with releaseChunks each owned chunk is released once written', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'atelier-temp-file-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const releaseChunks of [false, true]) {
    const { owned, shared, all } = bodyChunks();
    const expected = sha256(Buffer.concat(all));
    const total = all.reduce((n, chunk) => n + chunk.length, 0);
    const file = await writeStreamToTempFile(Readable.from(all), { dir, releaseChunks });
    try {
      assert.equal(file.bytes, total);
      assert.equal(sha256(readFileSync(file.path)), expected);
      for (const chunk of owned) assert.equal(chunk.byteLength, releaseChunks ? 0 : chunk.buffer.byteLength);
      assert.equal(shared.byteLength, 2000, 'a chunk sharing its buffer is left alone');
    } finally {
      await file.cleanup();
    }
    assert.equal(existsSync(file.path), false);
  }
});

test('a body over the limit is refused and leaves no file behind', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'atelier-temp-file-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { all } = bodyChunks();
  await assert.rejects(
    writeStreamToTempFile(Readable.from(all), { dir, maxBytes: 100_000, releaseChunks: true }),
    TooLarge,
  );
  assert.deepEqual(readdirSync(dir), []);
});
