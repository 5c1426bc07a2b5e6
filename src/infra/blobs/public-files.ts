import type { Readable } from 'node:stream';
import { Gone, InvalidInput, NotFound } from '../../base/domain/errors.js';
import { type BlobStat, type BlobStore, isBlobKey } from './blob-store.js';
import {
  createRenditions,
  RENDITIONS_PREFIX,
  type RenditionFormat,
  type RenditionWidth,
} from './renditions.js';

/** A key that names no file (or a malformed one). */
const missing = () => new NotFound('File not found');
/** A key whose file the data lifecycle removed (deleted, expired, erased). */
const goneFile = () => new Gone('This file was removed (deleted, expired or erased) and is gone for good');

/**
 * The files served publicly at /files/<key>: originals, and their renditions made on first request.
 * What exists is decided here: a missing or malformed key is NotFound, whatever asks.
 */
export function createPublicFiles({
  blobs,
  renditionCaps,
  isGone,
}: {
  blobs: BlobStore;
  /** Whether a file was removed for good by the data lifecycle (answered 410 instead of 404). */
  isGone?: ((key: string) => Promise<boolean>) | undefined;
  /** First-time renditions at once on this node, and callers waiting (past them: 429). */
  renditionCaps?: { concurrency: number; queue: number } | undefined;
}) {
  const renditions = createRenditions({ blobs, ...(renditionCaps ? { caps: renditionCaps } : {}) });
  const presign = blobs.signedUrl?.bind(blobs);
  /** The error for a key that names no file: Gone when the lifecycle removed it, else NotFound. */
  const absent = async (key: string) => ((await isGone?.(key)) ? goneFile() : missing());
  return {
    /** Whether the store hands out presigned URLs (object storage). */
    presigns: presign !== undefined,

    /**
     * The key to answer with: the key itself, or its rendition when `w` asks for one (a first one
     * made in `client`'s fair turn: the caller's address, as /files carries no account).
     */
    async keyToServe(
      key: string,
      w?: RenditionWidth,
      format?: RenditionFormat,
      client?: string,
    ): Promise<string> {
      if (w === undefined) {
        if (format !== undefined) throw new InvalidInput('format needs w (a rendition width)');
        return key;
      }
      if (key.startsWith(RENDITIONS_PREFIX)) throw new InvalidInput('A rendition cannot be resized again');
      if (!isBlobKey(key)) throw missing();
      // An original that cannot be resized (BMP) is served as it is.
      return (await renditions.ensure(key, w, format ?? 'original', client)) ?? key;
    },

    async stat(key: string): Promise<BlobStat> {
      const stat = await blobs.stat(key);
      if (!stat) throw await absent(key);
      return stat;
    },

    async open(key: string): Promise<{ stream: Readable; stat: BlobStat }> {
      const found = await blobs.open(key);
      if (!found) throw await absent(key);
      return found;
    },

    /** A presigned URL of the file, valid `seconds`. */
    async signedUrl(key: string, seconds: number): Promise<string> {
      const url = await presign?.(key, seconds);
      if (!url) throw await absent(key);
      return url;
    },
  };
}

export type PublicFiles = ReturnType<typeof createPublicFiles>;
