import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { InvalidInput, TooLarge } from '../../base/domain/errors.js';
import {
  MAX_UPLOAD_BYTES,
  type UploadsService,
  writeStreamToTempFile,
} from '../../capabilities/uploads/index.js';

/**
 * Images sent inline as data URLs (`data:image/png;base64,…`), as chat apps send them: decoded,
 * hashed (to recognise one of the account's own results), and stored like an upload.
 */

const DATA_URL = /^data:(image\/[\w.+-]+)?(?:;[\w-]+=[^;,]*)*;base64,/i;

/** True for a data URL (of any type: a wrong one is refused when it is decoded). */
export function isDataUrl(url: string): boolean {
  return url.slice(0, 5).toLowerCase() === 'data:';
}

/** The bytes of an image data URL; a malformed one, or one that is not base64 image bytes, is a 400 naming `field`. */
export function dataUrlBytes(url: string, field: string): Buffer {
  const head = DATA_URL.exec(url.slice(0, 200));
  if (!head?.[1]) throw new InvalidInput(`${field}: a data URL must be data:image/…;base64,…`, field);
  const data = url.slice(head[0].length).replace(/\s+/g, '');
  if ((data.length * 3) / 4 > MAX_UPLOAD_BYTES + 3)
    throw new TooLarge(`${field}: image is larger than 25 MB`);
  if (data === '' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(data))
    throw new InvalidInput(`${field}: the data URL's data is not base64`, field);
  return Buffer.from(data, 'base64');
}

/** The sha256 (hex) of an image data URL's bytes (what the asset library records of each result). */
export function dataUrlSha256(url: string, field: string): string {
  return createHash('sha256').update(dataUrlBytes(url, field)).digest('hex');
}

/** Stores an image data URL like an upload (the same checks, the account's library): its Atelier URL. */
export async function storeDataUrl(
  uploads: Pick<UploadsService, 'ingestFile'>,
  accountId: string,
  url: string,
  field: string,
): Promise<string> {
  const file = await writeStreamToTempFile(Readable.from([dataUrlBytes(url, field)]));
  try {
    return (await uploads.ingestFile(accountId, file.path)).url;
  } finally {
    await file.cleanup();
  }
}
