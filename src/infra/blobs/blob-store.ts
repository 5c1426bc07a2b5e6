import type { Readable } from 'node:stream';

export interface BlobStat {
  bytes: number;
  contentType: string;
  /** Strong validator for HTTP caching. */
  etag: string;
  modifiedAt: number;
}

/** Where images live. Keys are `/`-separated, made only of safe characters (see `assertBlobKey`). */
export interface BlobStore {
  /** Writes a blob from bytes or a file on disk; overwriting a key replaces it atomically. */
  put(key: string, source: Buffer | { path: string }, contentType: string): Promise<void>;
  /** The blob's bytes, or undefined when absent. */
  get(key: string): Promise<Buffer | undefined>;
  /** A stream of the blob, or undefined when absent. */
  open(key: string): Promise<{ stream: Readable; stat: BlobStat } | undefined>;
  stat(key: string): Promise<BlobStat | undefined>;
  delete(key: string): Promise<void>;
  /**
   * A URL, valid for `expiresInSeconds`, at which the storage itself serves the blob (object storage
   * only), or undefined when the blob is absent.
   */
  signedUrl?(key: string, expiresInSeconds: number): Promise<string | undefined>;
}

const keyPattern = /^(?:[a-z0-9][a-z0-9_-]*\/)*[A-Za-z0-9_-]+\.(png|jpg|webp|gif|bmp|avif)$/;

/** True when `key` is a well-formed blob key (no `..`, no absolute paths, a known image extension). */
export function isBlobKey(key: string): boolean {
  return key.length <= 200 && keyPattern.test(key);
}

const contentTypes: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  bmp: 'image/bmp',
  // Renditions only: uploads are never AVIF.
  avif: 'image/avif',
};

/** The content type a key's extension stands for. */
export function contentTypeOfKey(key: string): string {
  return contentTypes[key.slice(key.lastIndexOf('.') + 1)] ?? 'application/octet-stream';
}

/** The extension used in keys for a content type. */
export function extensionOf(contentType: string): string {
  const found = Object.entries(contentTypes).find(([, type]) => type === contentType);
  if (!found) throw new Error(`no extension for ${contentType}`);
  return found[0];
}
