import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import type { AssetsRepository } from '../assets/assets-repository.js';
import type { BlobStore } from '../blobs/blob-store.js';
import type { UploadResult } from '../contract/uploads.js';
import { assertImageDecodes } from '../images/decode-check.js';
import { inspectImageFile } from '../images/inspect-image.js';
import type { SafeFetcher } from '../platform/outbound/safe-fetcher.js';

// The upload result of spec §2.5 is the contract's; the service adds its blob key for internal use.
export type { UploadResult };

/** How much of a file each read hands to the hash. */
const HASH_READ_BYTES = 256 * 1024;

/**
 * The file's SHA-256, read through one reused buffer: a read stream allocates a new 64 KB buffer per
 * chunk, and a 25 MB upload's worth of them waits as garbage for the next collection (with the
 * body's own chunks, four concurrent uploads rose the process past 64 MB).
 */
async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(HASH_READ_BYTES);
  const file = await open(path);
  try {
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await file.close();
  }
  return hash.digest('hex');
}

/** Re-hosts reference images: checks the bytes, stores them content-addressed, records the asset. */
export function createUploadsService(deps: {
  fetcher: SafeFetcher;
  blobs: BlobStore;
  assets: AssetsRepository;
  blobUrl(key: string): string;
}) {
  /** Checks and stores an image file already on disk (a download or a direct upload). */
  async function ingestFile(accountId: string, path: string): Promise<UploadResult & { blobKey: string }> {
    const info = await inspectImageFile(path);
    // Headers can be valid over garbage pixels: only a full decode proves a renderer can read it.
    await assertImageDecodes(path, info);
    const sha256 = await sha256OfFile(path);
    const filename = `${sha256}.${info.extension}`;
    const blobKey = `uploads/${filename}`;
    const stat = await deps.blobs.stat(blobKey);
    if (!stat) await deps.blobs.put(blobKey, { path }, info.contentType);
    const bytes = stat?.bytes ?? (await deps.blobs.stat(blobKey))?.bytes ?? 0;
    const url = deps.blobUrl(blobKey);
    await deps.assets.insertUpload({
      accountId,
      blobKey,
      url,
      contentType: info.contentType,
      bytes,
      width: info.width,
      height: info.height,
      sha256,
    });
    return { url, filename, content_type: info.contentType, bytes, blobKey };
  }

  return {
    ingestFile,

    /** Fetches a caller-named URL through the SSRF-safe fetcher and ingests it. */
    async ingestUrl(accountId: string, url: string): Promise<UploadResult & { blobKey: string }> {
      const file = await deps.fetcher.fetchToFile(url, { subject: 'source_url' });
      try {
        return await ingestFile(accountId, file.path);
      } finally {
        await file.cleanup();
      }
    },
  };
}

export type UploadsService = ReturnType<typeof createUploadsService>;
