import { z } from 'zod';
import { ASSET_KINDS } from '../domain/asset-kinds.js';
import { pageOf, pageQuery } from './paging.js';

export const MAX_ASSETS_LIMIT = 50;

/** An asset of the library: an upload or a result. */
export const assetSchema = z
  .object({
    id: z.string(),
    kind: z.enum(ASSET_KINDS),
    url: z.string(),
    contentType: z.string(),
    bytes: z.number().int(),
    width: z.number().int(),
    height: z.number().int(),
    sha256: z.string(),
    generationId: z.string().nullable(),
    taskId: z.string().nullable(),
    createdAt: z.number().int(),
  })
  .meta({ id: 'Asset', description: 'Asset' });

export type Asset = z.output<typeof assetSchema>;

export const assetsPageSchema = pageOf(assetSchema).meta({ id: 'AssetsPage', description: 'Assets page' });

export const assetsQuerySchema = z.object({
  ...pageQuery(MAX_ASSETS_LIMIT),
  kind: z
    .enum(ASSET_KINDS, { error: 'must be upload or result' })
    .optional()
    .describe('Only uploads or only results'),
});

export const assetParamsSchema = z.object({ id: z.string().max(200).describe('Asset id (ast_…)') });
