import { stat as fileStat } from 'node:fs/promises';
import type { UploadResult } from '../../base/contract/uploads.js';
import type { BlobStore } from '../../infra/blobs/blob-store.js';
import { assertImageDecodes } from '../../infra/images/decode-check.js';
import { inspectImageFile } from '../../infra/images/inspect-image.js';
import type { SafeFetcher } from '../../infra/outbound/safe-fetcher.js';
import type { AssetsRepository } from '../assets/index.js';
import { uploadDigests } from './content-names.js';
import type { UploadQuota } from './upload-quota.js';

// The upload result of spec §2.5 is the contract's; the service adds its blob key for internal use.
export type { UploadResult };

/** A file name fit to show: its last path segment, without control characters, at most 200 characters. */
export function originalFileName(raw: string | undefined): string | undefined {
  const name = raw
    ?.split(/[\\/]/)
    .pop()
    ?.replace(/\p{Cc}/gu, '')
    .trim();
  return name ? name.slice(0, 200) : undefined;
}

/** The file name a URL ends with (`…/sunset.jpg` → `sunset.jpg`), when its last segment looks like one. */
function nameInUrl(url: string): string | undefined {
  try {
    const last = new URL(url).pathname.split('/').pop() ?? '';
    return /\.[a-z0-9]{2,5}$/i.test(last) ? originalFileName(decodeURIComponent(last)) : undefined;
  } catch {
    return undefined;
  }
}

/** Re-hosts reference images: checks the bytes, stores them content-addressed, records the asset. */
export function createUploadsService(deps: {
  fetcher: SafeFetcher;
  blobs: BlobStore;
  assets: AssetsRepository;
  blobUrl(key: string): string;
  /** The key upload names are an HMAC under (derived from the master key: the same on every node). */
  namingKey: Buffer;
  /** The daily upload quota per account; none when absent. */
  quota?: UploadQuota;
}) {
  /** Checks and stores an image file already on disk (a download or a direct upload). */
  async function ingestFile(
    accountId: string,
    path: string,
    originalName?: string,
  ): Promise<UploadResult & { blobKey: string }> {
    const info = await inspectImageFile(path);
    // Headers can be valid over garbage pixels: only a full decode proves a renderer can read it.
    await assertImageDecodes(path, info);
    const { sha256, name } = await uploadDigests(path, deps.namingKey);
    const filename = `${name}.${info.extension}`;
    const blobKey = `uploads/${filename}`;
    // Counted once the image is known good, before it is stored; given back if storing fails.
    const giveBack = await deps.quota?.reserve(accountId, (await fileStat(path)).size);
    let bytes: number;
    try {
      const stat = await deps.blobs.stat(blobKey);
      if (!stat) await deps.blobs.put(blobKey, { path }, info.contentType);
      bytes = stat?.bytes ?? (await deps.blobs.stat(blobKey))?.bytes ?? 0;
    } catch (error) {
      await giveBack?.();
      throw error;
    }
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
      originalName: originalFileName(originalName),
    });
    return { url, filename, content_type: info.contentType, bytes, blobKey };
  }

  return {
    ingestFile,

    /** Refuses (RateLimited) an account whose uploads for today are spent, before any body is read. */
    async assertRoom(accountId: string): Promise<void> {
      await deps.quota?.assertRoom(accountId);
    },

    /** Fetches a caller-named URL through the SSRF-safe fetcher and ingests it. */
    async ingestUrl(accountId: string, url: string): Promise<UploadResult & { blobKey: string }> {
      await deps.quota?.assertRoom(accountId);
      const file = await deps.fetcher.fetchToFile(url, { subject: 'source_url' });
      try {
        return await ingestFile(accountId, file.path, nameInUrl(url));
      } finally {
        await file.cleanup();
      }
    },
  };
}

export type UploadsService = ReturnType<typeof createUploadsService>;
