// Where files live (ATELIER_STORAGE): the local disk, or an S3 bucket (and an S3-compatible store's
// endpoint), read from the environment by loadConfig (config.ts).

/** The variables the storage settings are read from, as the environment schema parsed them. */
interface StorageEnv {
  ATELIER_STORAGE: string;
  ATELIER_FILES_REDIRECT?: string | undefined;
  ATELIER_S3_ENDPOINT?: string | undefined;
  AWS_REGION?: string | undefined;
  AWS_ACCESS_KEY_ID?: string | undefined;
  AWS_SECRET_ACCESS_KEY?: string | undefined;
  AWS_SESSION_TOKEN?: string | undefined;
}

export interface S3StorageConfig {
  kind: 's3';
  bucket: string;
  /** Prepended to every key with a `/`; empty for the bucket's root. */
  prefix: string;
  region: string;
  /** An S3-compatible store's URL (MinIO, R2, Ceph…); addressed path-style. Unset for AWS itself. */
  endpoint: string | undefined;
  /** Unset: the SDK's default chain (instance or task role, shared config files). */
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined;
}

export type StorageConfig = { kind: 'file' } | S3StorageConfig;

// Bucket names as S3 accepts them: 3–63 lowercase letters, digits, dots and hyphens.
const bucketPattern = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const prefixSegmentPattern = /^[A-Za-z0-9._-]+$/;

/** Splits `s3://bucket[/prefix]` into bucket and prefix (no leading or trailing `/`); undefined when malformed. */
export function parseS3StorageUrl(url: string): { bucket: string; prefix: string } | undefined {
  const match = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(url);
  if (!match?.[1] || !bucketPattern.test(match[1])) return undefined;
  const segments = (match[2] ?? '').split('/').filter(Boolean);
  if (segments.some((segment) => !prefixSegmentPattern.test(segment) || /^\.+$/.test(segment)))
    return undefined;
  return { bucket: match[1], prefix: segments.join('/') };
}

/** The storage settings, or the messages naming each bad variable. */
export function storageOf(e: StorageEnv): { storage: StorageConfig; problems: string[] } {
  const location = e.ATELIER_STORAGE === 'file' ? undefined : parseS3StorageUrl(e.ATELIER_STORAGE);
  const problems: string[] = [];
  if (!location) {
    if (e.ATELIER_FILES_REDIRECT === 'true') {
      problems.push(
        'ATELIER_FILES_REDIRECT: needs ATELIER_STORAGE=s3://… (files on disk are always streamed)',
      );
    }
    return { storage: { kind: 'file' }, problems };
  }
  if (!e.AWS_REGION && !e.ATELIER_S3_ENDPOINT) {
    problems.push("AWS_REGION: required with ATELIER_STORAGE=s3://… (the bucket's region)");
  }
  if (Boolean(e.AWS_ACCESS_KEY_ID) !== Boolean(e.AWS_SECRET_ACCESS_KEY)) {
    const missing = e.AWS_ACCESS_KEY_ID ? 'AWS_SECRET_ACCESS_KEY' : 'AWS_ACCESS_KEY_ID';
    problems.push(`${missing}: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together`);
  }
  const credentials =
    e.AWS_ACCESS_KEY_ID && e.AWS_SECRET_ACCESS_KEY
      ? {
          accessKeyId: e.AWS_ACCESS_KEY_ID,
          secretAccessKey: e.AWS_SECRET_ACCESS_KEY,
          ...(e.AWS_SESSION_TOKEN ? { sessionToken: e.AWS_SESSION_TOKEN } : {}),
        }
      : undefined;
  return {
    storage: {
      kind: 's3',
      ...location,
      // S3-compatible stores mostly ignore the region, but requests are still signed for one.
      region: e.AWS_REGION ?? 'us-east-1',
      endpoint: e.ATELIER_S3_ENDPOINT?.replace(/\/+$/, ''),
      credentials,
    },
    problems,
  };
}
