import { isBlobKey } from './blob-store.js';

/** Atelier's own file URLs (`<public base URL>/files/<key>`) and the blob keys they serve. */
export interface PublicUrls {
  /** The public URL of a blob key. */
  urlOf(key: string): string;
  /** The blob key of one of Atelier's own file URLs; undefined for foreign URLs and malformed keys. */
  keyOf(url: string): string | undefined;
}

/** The one mapping between public file URLs and blob keys, built once by the core. */
export function createPublicUrls(publicBaseUrl: string): PublicUrls {
  const filesPrefix = `${publicBaseUrl}/files/`;
  return {
    urlOf: (key) => `${filesPrefix}${key}`,
    keyOf(url) {
      if (!url.startsWith(filesPrefix)) return undefined;
      const key = url.slice(filesPrefix.length);
      return isBlobKey(key) ? key : undefined;
    },
  };
}
