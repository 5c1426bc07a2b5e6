import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished, type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DomainError, InvalidInput, TooLarge } from '../platform/domain-errors.js';

export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

/**
 * Streams a request body to a temp file, counting bytes as they come and stopping at
 * `maxBytes` + 1, so a large body never sits in memory. The file is removed on any failure.
 */
export async function writeStreamToTempFile(
  source: Readable,
  maxBytes = MAX_UPLOAD_BYTES,
  dir = tmpdir(),
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
  const written = pipeline(counter, createWriteStream(path, { mode: 0o600 }));
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
