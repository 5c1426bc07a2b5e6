import { createFairConcurrencyLimit } from '../../base/concurrency/concurrency-limit.js';
import type { BlobStore } from '../../infra/blobs/blob-store.js';
import { toDecodableImage } from '../../infra/images/decodable-image.js';
import type { ReferenceImage } from '../providers/index.js';

/** Reference images decoded at once on a node (each holds a thread of libuv's pool while it runs). */
export const DECODING_SLOTS = 2;

/**
 * The reference images (and masks) of a task's step, read from blob storage and made decodable
 * (src/infra/images/decodable-image.ts) in fair turns between accounts: every task step of a worker
 * (2,000 at once) would otherwise queue its decoding in libuv's one first-come line, where another
 * account's reference waited behind a backlog's thousands. Here the accounts with decoding waiting
 * take turns for `slots` slots (fair-queue.ts), one account's in order; the reads stay outside them.
 */
export function createReferenceDecoding({
  blobs,
  slots = DECODING_SLOTS,
}: {
  blobs: BlobStore;
  slots?: number;
}) {
  const turns = createFairConcurrencyLimit(slots);
  return {
    /** The images of `refKeys` for `accountId`'s task, or why one cannot be used (the task fails with it). */
    async load(
      accountId: string,
      refKeys: readonly string[],
      what = 'Reference image',
    ): Promise<ReferenceImage[] | string> {
      const references: ReferenceImage[] = [];
      for (const [i, key] of refKeys.entries()) {
        const bytes = await blobs.get(key);
        if (!bytes) return `${what} ${key} is no longer stored`;
        // Undecodable bytes stay undecodable: the task fails now, with the reason, instead of retrying.
        const decodable = await turns.run(accountId, () => toDecodableImage(bytes)).catch(() => undefined);
        if (!decodable) return `${what} ${i + 1} could not be decoded (corrupt or truncated image data)`;
        references.push(decodable);
      }
      return references;
    },
  };
}

export type ReferenceDecoding = ReturnType<typeof createReferenceDecoding>;
