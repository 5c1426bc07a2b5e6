import { stat } from 'node:fs/promises';
import { Counter, type Registry } from 'prom-client';
import type { BlobStore } from './blob-store.js';

/** Key prefixes Atelier writes; anything else is counted as `other` (labels stay a closed set). */
const PREFIXES = new Set(['uploads', 'results', 'renditions']);

/** The blob store with every write's bytes counted by key prefix (registered in `registry`). */
export function countedBlobStore(blobs: BlobStore, registry: Registry): BlobStore {
  const bytesWritten = new Counter({
    name: 'atelier_blob_bytes_written_total',
    help: 'Bytes written to blob storage, by prefix (uploads, results)',
    labelNames: ['prefix'] as const,
    registers: [registry],
  });
  return {
    ...blobs,
    async put(key, source, contentType) {
      await blobs.put(key, source, contentType);
      const bytes = Buffer.isBuffer(source) ? source.length : (await stat(source.path)).size;
      const prefix = key.split('/')[0] ?? '';
      bytesWritten.inc({ prefix: PREFIXES.has(prefix) ? prefix : 'other' }, bytes);
    },
  };
}
