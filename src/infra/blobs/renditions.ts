import { createBoundedWorkPool } from '../../base/concurrency/bounded-work-pool.js';
import { sharp } from '../images/sharp.js';
import { type BlobStore, contentTypeOfKey } from './blob-store.js';

/**
 * The widths a rendition can have. A fixed list, not any number, so nobody can fill the storage
 * with one copy per pixel width: at most widths × formats renditions per image, ever.
 */
export const RENDITION_WIDTHS = [160, 320, 480, 640, 960, 1280] as const;
export type RenditionWidth = (typeof RENDITION_WIDTHS)[number];

/** Formats a rendition can be encoded in; `original` keeps the image's own format (the fallback). */
export const RENDITION_FORMATS = ['avif', 'webp', 'original'] as const;
export type RenditionFormat = (typeof RENDITION_FORMATS)[number];

/** Where renditions live in blob storage; resizing one of these again is refused. */
export const RENDITIONS_PREFIX = 'renditions/';

/** Extensions sharp can write for the `original` format (BMP cannot be written: PNG stands in). */
const writable: Record<string, 'png' | 'jpg' | 'webp' | 'gif'> = {
  png: 'png',
  jpg: 'jpg',
  webp: 'webp',
  gif: 'gif',
  bmp: 'png',
};

/**
 * The blob key of a rendition: `renditions/w<width>/<original extension>/<key without extension>.<ext>`
 * (the original's extension is kept in the path, so two originals that differ only by it never share one).
 */
export function renditionKey(key: string, width: RenditionWidth, format: RenditionFormat): string {
  const dot = key.lastIndexOf('.');
  const base = key.slice(0, dot);
  const ext = key.slice(dot + 1);
  const out = format === 'original' ? (writable[ext] ?? 'png') : format;
  return `${RENDITIONS_PREFIX}w${width}/${ext}/${base}.${out}`;
}

async function encode(original: Buffer, width: number, ext: string): Promise<Buffer> {
  // Never enlarge: a rendition wider than its original is the original's width, re-encoded.
  const resized = sharp(original, { limitInputPixels: 100_000_000 }).resize({
    width,
    withoutEnlargement: true,
  });
  switch (ext) {
    case 'avif':
      // effort 2: a fraction of the default's CPU for a few percent more bytes, on a request's path.
      return resized.avif({ quality: 50, effort: 2 }).toBuffer();
    case 'webp':
      return resized.webp({ quality: 75 }).toBuffer();
    case 'jpg':
      return resized.jpeg({ quality: 80, mozjpeg: true }).toBuffer();
    case 'gif':
      return resized.gif().toBuffer();
    default:
      return resized.png().toBuffer();
  }
}

/** How long a caller refused by a full rendition pool is asked to wait. */
const RENDITION_RETRY_AFTER_MS = 2000;

/** All clients together may have this many times one client's waiting places. */
const CLIENTS_WAITING = 32;

/**
 * Resized copies of stored images, made on first request and kept in blob storage beside the
 * originals (so every node, on disk or S3, makes each one once). `ensure` answers the rendition's
 * key, or undefined when the original is absent or cannot be decoded (BMP, say): serve the original.
 *
 * Security: anyone may ask for a first rendition of a 100-megapixel upload, and each decode holds a
 * thread of libuv's pool (where file reads for every other image wait) and up to 25 MB of memory
 * for seconds. First renditions run in their own pool of `concurrency` slots, in fair turns between
 * the clients that ask (one client's backlog delays another's first rendition by a turn per waiting
 * client, not by the backlog), with `queue` waiting places per client and 32 times that in all;
 * past that, `ensure` throws RateLimited (429, Retry-After). Kept renditions never wait.
 */
export function createRenditions({
  blobs,
  caps = { concurrency: 2, queue: 32 },
}: {
  blobs: BlobStore;
  caps?: { concurrency: number; queue: number };
}) {
  const pool = createBoundedWorkPool({
    ...caps,
    totalQueue: caps.queue * CLIENTS_WAITING,
    busyMessage: 'Too many new image renditions are being made on this server; retry shortly',
    retryAfterMs: RENDITION_RETRY_AFTER_MS,
  });
  // One encoding per rendition at a time in this process: concurrent requests wait for the first.
  const inFlight = new Map<string, Promise<string | undefined>>();

  async function make(key: string, target: string, width: RenditionWidth): Promise<string | undefined> {
    const original = await blobs.get(key);
    if (!original) return undefined;
    let bytes: Buffer;
    try {
      bytes = await encode(original, width, target.slice(target.lastIndexOf('.') + 1));
    } catch {
      return undefined;
    }
    await blobs.put(target, bytes, contentTypeOfKey(target));
    return target;
  }

  return {
    /** The rendition's key, made first in `client`'s turn when it is not kept yet (`client`: who asks). */
    async ensure(
      key: string,
      width: RenditionWidth,
      format: RenditionFormat,
      client = '',
    ): Promise<string | undefined> {
      const target = renditionKey(key, width, format);
      if (await blobs.stat(target)) return target;
      let pending = inFlight.get(target);
      if (!pending) {
        pending = pool.run(() => make(key, target, width), client).finally(() => inFlight.delete(target));
        inFlight.set(target, pending);
      }
      return pending;
    },
  };
}

export type Renditions = ReturnType<typeof createRenditions>;
