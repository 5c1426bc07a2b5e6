import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from '@20minutes/s3rver';
import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createS3Client } from '../../src/infra/blobs/s3-blob-store.js';

/** The test server's one account: it checks SigV4 signatures against this secret. */
const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface TestS3 {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  bucket: string;
  /** A client of the server (path-style, the server's credentials). */
  client: S3Client;
  /** The environment that points Atelier at this bucket, under `prefix`. */
  env(prefix?: string): Record<string, string>;
  /** Whether the bucket holds an object at exactly `key` (the full key, prefix included). */
  hasObject(key: string): Promise<boolean>;
  close(): Promise<void>;
}

/** A real S3-speaking server on a free loopback port, with one empty bucket, its data in a temp dir. */
export async function startTestS3(bucket = 'atelier-test'): Promise<TestS3> {
  const directory = await mkdtemp(join(tmpdir(), 'atelier-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = createS3Client({ region: 'us-east-1', endpoint, credentials });
  return {
    endpoint,
    bucket,
    client,
    env(prefix) {
      return {
        ATELIER_STORAGE: `s3://${bucket}${prefix ? `/${prefix}` : ''}`,
        ATELIER_S3_ENDPOINT: endpoint,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      };
    },
    // By HEAD, not by listing: this server's signature check refuses bucket-level requests (listings).
    async hasObject(key) {
      try {
        await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return true;
      } catch (error) {
        if ((error as { name?: string }).name === 'NotFound') return false;
        throw error;
      }
    },
    async close() {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
