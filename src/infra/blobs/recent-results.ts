import type { BlobStore } from './blob-store.js';

/** How long a stored result is kept in memory, and how many bytes of results at most. */
const KEEP_MS = 5000;
const MAX_BYTES = 32 * 1024 * 1024;

/**
 * The blob store with the results this process stored in the last few seconds kept in memory
 * (issue 48): the synchronous OpenAI and Gemini answers send a result's bytes back (b64_json)
 * milliseconds after the engine stored them, and read them from here instead of from the disk or
 * the bucket (a file's open, stat, read and close through the thread pool; a GET on S3). Only
 * `results/` keys written from a buffer are kept, at most 5 s and 32 MB in all (oldest first out);
 * a delete forgets the key. Every other call goes to the store.
 */
export function withRecentResults(blobs: BlobStore, now: () => number = Date.now): BlobStore {
  const kept = new Map<string, { bytes: Buffer; at: number }>();
  let total = 0;
  const forget = (key: string) => {
    const entry = kept.get(key);
    if (!entry) return;
    kept.delete(key);
    total -= entry.bytes.length;
  };
  const trim = () => {
    const oldest = now() - KEEP_MS;
    for (const [key, entry] of kept) {
      if (total <= MAX_BYTES && entry.at >= oldest) break;
      forget(key);
    }
  };
  return {
    ...blobs,
    async put(key, source, contentType) {
      forget(key);
      await blobs.put(key, source, contentType);
      if (Buffer.isBuffer(source) && key.startsWith('results/') && source.length <= MAX_BYTES) {
        kept.set(key, { bytes: source, at: now() });
        total += source.length;
      }
      trim();
    },
    async get(key) {
      trim();
      return kept.get(key)?.bytes ?? blobs.get(key);
    },
    async delete(key) {
      forget(key);
      return blobs.delete(key);
    },
  };
}
