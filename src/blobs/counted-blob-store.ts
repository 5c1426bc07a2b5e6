import { stat } from 'node:fs/promises';
import type { Metrics } from '../observability/metrics.js';
import type { BlobStore } from './blob-store.js';

/** Key prefixes Atelier writes; anything else is counted as `other` (labels stay a closed set). */
const PREFIXES = new Set(['uploads', 'results', 'renditions']);

/** The blob store with every write's bytes counted by key prefix. */
export function countedBlobStore(blobs: BlobStore, metrics: Pick<Metrics, 'blobBytesWritten'>): BlobStore {
  return {
    ...blobs,
    async put(key, source, contentType) {
      await blobs.put(key, source, contentType);
      const bytes = Buffer.isBuffer(source) ? source.length : (await stat(source.path)).size;
      const prefix = key.split('/')[0] ?? '';
      metrics.blobBytesWritten.inc({ prefix: PREFIXES.has(prefix) ? prefix : 'other' }, bytes);
    },
  };
}
