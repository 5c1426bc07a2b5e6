import type { AssetsRepository } from '../../capabilities/assets/index.js';
import { dataUrlSha256, isDataUrl } from './data-url-images.js';

/** What recognising the account's own works reads. */
export interface OwnWorksDeps {
  assets: Pick<AssetsRepository, 'findByBlobKey' | 'resultTaskBySha256'>;
  /** Maps one of Atelier's own file URLs to its blob key; undefined for foreign URLs. */
  blobKeyOfUrl(url: string): string | undefined;
}

/**
 * The task id of the account's work an image names, when it is one: Atelier's own file URL of one
 * of its results, or a data URL whose bytes are one of its results (found by their sha256, as the
 * asset library records them). Anything else (a foreign URL, an upload, another account's work)
 * is undefined: it reads exactly as an unknown image.
 */
export async function ownWorkOfImage(
  deps: OwnWorksDeps,
  accountId: string,
  url: string,
  field: string,
): Promise<string | undefined> {
  if (isDataUrl(url)) return deps.assets.resultTaskBySha256(accountId, dataUrlSha256(url, field));
  const key = deps.blobKeyOfUrl(url.split(/[?#]/)[0] ?? url);
  if (key === undefined) return undefined;
  const asset = await deps.assets.findByBlobKey(accountId, key);
  return asset?.kind === 'result' ? (asset.taskId ?? undefined) : undefined;
}
