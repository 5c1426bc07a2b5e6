/** What an asset of the library is: an image the caller uploaded, or one a generation produced. */
export const ASSET_KINDS = ['upload', 'result'] as const;
export type AssetKind = (typeof ASSET_KINDS)[number];
