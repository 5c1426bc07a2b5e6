import { createHash, createHmac } from 'node:crypto';
import { open } from 'node:fs/promises';

/** How much of a file each read hands to the hashes. */
const HASH_READ_BYTES = 256 * 1024;

/**
 * An upload's digests, read once through one reused buffer (a read stream allocates a new 64 KB
 * buffer per chunk, and a 25 MB upload's worth of them waits as garbage for the next collection):
 * `sha256`, the content's hash, kept with the account's asset (never in a URL); and `name`, the
 * HMAC-SHA-256 of the content under the deployment's naming key, which its URL carries.
 * Security: a URL named by the plain SHA-256 lets anyone holding an image test whether it was
 * uploaded (compute the hash, request the file); without the key, the name cannot be computed.
 * The same bytes still get the same name on every node, so uploads stay de-duplicated.
 */
export async function uploadDigests(
  path: string,
  namingKey: Buffer,
): Promise<{ sha256: string; name: string }> {
  const hash = createHash('sha256');
  const mac = createHmac('sha256', namingKey);
  const buffer = Buffer.allocUnsafe(HASH_READ_BYTES);
  const file = await open(path);
  try {
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      hash.update(chunk);
      mac.update(chunk);
    }
  } finally {
    await file.close();
  }
  return { sha256: hash.digest('hex'), name: mac.digest('hex') };
}

/** The label under which the upload naming key is derived from the master key. */
export const UPLOAD_NAMING_KEY_LABEL = 'upload-names';
