import { createReadStream } from 'node:fs';
import { stat as statFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { type BlobStat, type BlobStore, contentTypeOfKey, isBlobKey } from './blob-store.js';

export interface S3ClientSettings {
  region: string;
  /** An S3-compatible store's URL; when set, requests use path-style addressing (`{endpoint}/{bucket}/{key}`). */
  endpoint: string | undefined;
  /** Unset: the SDK's default credential chain (instance or task role, shared config files). */
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined;
}

/** An S3 client set up for AWS or, with an endpoint, any S3-compatible store. */
export function createS3Client(settings: S3ClientSettings): S3Client {
  return new S3Client({
    region: settings.region,
    // Path-style: S3-compatible stores rarely have a DNS name per bucket (`bucket.minio:9000`).
    ...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    // Compatibility: since 2025 the SDK sends streamed bodies aws-chunked with a trailing CRC32 by
    // default, which several S3-compatible stores reject or store verbatim (a corrupted object).
    // Checksums only where an operation requires one; TLS and S3's own MD5 ETag cover integrity.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // Idle timeouts (not whole-transfer limits): a stalled store fails the request instead of hanging it.
    requestHandler: { connectionTimeout: 10_000, requestTimeout: 60_000 },
  });
}

/** Objects are immutable once written (content-addressed uploads, results keyed by task id). */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Blobs as objects in one bucket, under an optional key prefix; the same keys as on disk.
 * `put` from a file streams it; nothing touches the local disk.
 */
export function createS3BlobStore({
  client,
  bucket,
  prefix,
}: {
  client: S3Client;
  bucket: string;
  /** Without leading or trailing `/`; empty for the bucket's root. */
  prefix: string;
}): BlobStore {
  function objectKey(key: string): string {
    // Security: keys come from URLs; only the strict key grammar reaches the bucket, below the prefix.
    if (!isBlobKey(key)) throw new Error(`invalid blob key ${JSON.stringify(key)}`);
    return prefix ? `${prefix}/${key}` : key;
  }

  function statOf(
    key: string,
    head: { ContentLength?: number; ETag?: string; LastModified?: Date },
  ): BlobStat {
    return {
      bytes: head.ContentLength ?? 0,
      // From the key, as on disk: never trust metadata someone else may have set on the object.
      contentType: contentTypeOfKey(key),
      etag: strongEtag(head.ETag ?? ''),
      modifiedAt: head.LastModified?.getTime() ?? 0,
    };
  }

  async function stat(key: string): Promise<BlobStat | undefined> {
    if (!isBlobKey(key)) return undefined;
    const head = await absentAsUndefined(
      client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey(key) })),
    );
    return head && statOf(key, head);
  }

  async function fetchObject(key: string) {
    if (!isBlobKey(key)) return undefined;
    const response = await absentAsUndefined(
      client.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey(key) })),
    );
    if (!response) return undefined;
    if (!(response.Body instanceof Readable))
      throw new Error('S3 GetObject answered without a Node.js stream');
    return { body: response.Body, stat: statOf(key, response) };
  }

  return {
    async put(key, source, contentType) {
      const common = {
        Bucket: bucket,
        Key: objectKey(key),
        ContentType: contentType,
        CacheControl: IMMUTABLE,
      };
      if (Buffer.isBuffer(source)) {
        await client.send(new PutObjectCommand({ ...common, Body: source, ContentLength: source.length }));
        return;
      }
      // Streams the file: a known length lets the SDK send it as one plain PUT without buffering it.
      const { size } = await statFile(source.path);
      const body = createReadStream(source.path);
      try {
        await client.send(new PutObjectCommand({ ...common, Body: body, ContentLength: size }));
      } finally {
        body.destroy();
      }
    },
    async get(key) {
      const found = await fetchObject(key);
      if (!found) return undefined;
      const chunks: Buffer[] = [];
      for await (const chunk of found.body) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    async open(key) {
      const found = await fetchObject(key);
      return found && { stream: found.body, stat: found.stat };
    },
    stat,
    async delete(key) {
      if (!isBlobKey(key)) return;
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
    },
    async signedUrl(key, expiresInSeconds) {
      if (!(await stat(key))) return undefined;
      return getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: objectKey(key) }), {
        expiresIn: expiresInSeconds,
      });
    },
  };
}

/** The operation's result, or undefined when the object does not exist (a missing bucket still throws). */
async function absentAsUndefined<T>(operation: Promise<T>): Promise<T | undefined> {
  try {
    return await operation;
  } catch (error) {
    // HEAD has no error body, so a missing object is a bare `NotFound`; GET names it `NoSuchKey`.
    if (error instanceof S3ServiceException && (error.name === 'NoSuchKey' || error.name === 'NotFound')) {
      return undefined;
    }
    throw error;
  }
}

/** S3 quotes its ETags; some compatible stores do not. HTTP wants the quoted form. */
function strongEtag(etag: string): string {
  return etag.startsWith('"') ? etag : `"${etag}"`;
}
