import { randomBytes } from 'node:crypto';
import { type FileHandle, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished, type Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DomainError, InvalidInput, TooLarge } from '../../base/domain/errors.js';

export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

/**
 * Gives a body chunk's memory back as soon as the chunk is on disk. Node's HTTP parser copies
 * every body chunk into a buffer of its own (up to 64 KB), which V8 would only free at a garbage
 * collection, and it starts one for such memory only once 64 MB of it has piled up: four
 * concurrent 24 MB uploads reached that before anything else did (P5 in docs/benchmarks.md).
 * Detaching the chunk's ArrayBuffer frees it at once. Only a chunk that spans its whole buffer is
 * released: one that shares its buffer with other data is left to the collector.
 */
function release(chunk: Buffer): void {
  const memory = chunk.buffer;
  if (memory instanceof ArrayBuffer && chunk.byteOffset === 0 && chunk.byteLength === memory.byteLength) {
    memory.transfer(0);
  }
}

/** Writes all of `chunk` at the file's position (a write may take less than it was given). */
async function writeWhole(file: FileHandle, chunk: Buffer): Promise<void> {
  for (let offset = 0; offset < chunk.length; ) {
    const { bytesWritten } = await file.write(chunk, offset, chunk.length - offset);
    if (bytesWritten === 0) throw new Error('the temp file took no bytes');
    offset += bytesWritten;
  }
}

/** A file sink that writes chunk by chunk, and with `releaseChunks` releases each chunk once it is written. */
async function fileSink(path: string, releaseChunks: boolean): Promise<Writable> {
  const file = await open(path, 'w', 0o600);
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      writeWhole(file, chunk).then(() => {
        if (releaseChunks) release(chunk);
        callback();
      }, callback);
    },
    final(callback) {
      file.close().then(() => callback(), callback);
    },
    destroy(error, callback) {
      file.close().then(
        () => callback(error),
        () => callback(error),
      );
    },
  });
}

/**
 * Streams a request body to a temp file, counting bytes as they come and stopping at
 * `maxBytes` + 1, so a large body never sits in memory. The file is removed on any failure.
 * `releaseChunks` says the source's chunks are nobody else's once read — a raw request body, whose
 * chunks Node's HTTP parser makes for it alone — so each is released once on disk (`release`);
 * a multipart part's chunks belong to its parser and are left alone.
 */
export async function writeStreamToTempFile(
  source: Readable,
  { maxBytes = MAX_UPLOAD_BYTES, dir = tmpdir(), releaseChunks = false } = {},
): Promise<{ path: string; bytes: number; cleanup(): Promise<void> }> {
  const path = join(dir, `atelier-upload-${randomBytes(8).toString('hex')}`);
  const cleanup = () => rm(path, { force: true });
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      if (bytes > maxBytes) callback(new TooLarge('Image is larger than 25 MB'));
      else callback(null, chunk);
    },
  });
  // The source is piped, not part of the pipeline: a pipeline would destroy it on overflow, and
  // destroying a request destroys its socket, so the client would never read the 413. Instead the
  // rest of an over-long body is read and discarded while the answer goes out.
  const written = pipeline(counter, await fileSink(path, releaseChunks));
  // A source that fails or closes before its end (a client gone mid-body) fails the write.
  const stopWatching = finished(source, (error) => {
    if (error) counter.destroy(error);
  });
  source.pipe(counter);
  try {
    await written;
  } catch (error) {
    source.unpipe(counter);
    source.resume();
    await cleanup();
    // Already the answer: our own refusal, or one the HTTP edge put on the request stream with
    // its own status (408 for a body that stalled), which is not this module's to reword.
    if (error instanceof DomainError || typeof (error as { status?: unknown }).status === 'number')
      throw error;
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
      throw new TooLarge('Image is larger than 25 MB');
    }
    throw new InvalidInput('The upload was interrupted');
  } finally {
    stopWatching();
  }
  return { path, bytes, cleanup };
}
