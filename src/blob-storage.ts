import type { BlobStore } from './infra/blobs/blob-store.js';
import { createDiskBlobStore } from './infra/blobs/disk-blob-store.js';
import type { Config } from './infra/config/config.js';

/** Files under the data dir, or objects in the configured bucket (then nothing is written to local disk). */
export async function createBlobStore(config: Config): Promise<BlobStore> {
  const { storage } = config;
  if (storage.kind === 'file') return createDiskBlobStore({ root: config.blobDir });
  // Loaded only when S3 is the storage: the AWS SDK would add about a tenth of a second to every
  // start on local disk.
  const { createS3BlobStore, createS3Client } = await import('./infra/blobs/s3-blob-store.js');
  return createS3BlobStore({
    client: createS3Client(storage),
    bucket: storage.bucket,
    prefix: storage.prefix,
  });
}
