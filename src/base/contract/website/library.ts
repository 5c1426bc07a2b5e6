/** The Library page's shapes (/web/api/assets): its query, an asset and a page of them. */
import { z } from 'zod';
import { ASSET_KINDS } from '../../domain/asset-kinds.js';
import { assetSchema } from '../assets.js';
import { pageFields } from '../paging.js';
import { searchQuery, webPageQuery } from './shared.js';

export const libraryQuerySchema = z.object({
  ...webPageQuery(30),
  ...searchQuery,
  kind: z
    .enum([...ASSET_KINDS, ''], { error: 'must be upload or result' })
    .optional()
    .transform((kind) => kind || undefined)
    .describe('Only uploads, or only results; empty or absent for both'),
});

/** An asset as /api/v1/assets lists it, less its hash and task, plus its prompt. */
export const libraryAssetSchema = assetSchema
  .omit({ sha256: true, taskId: true })
  .extend({
    prompt: z.string().nullable().describe('The prompt a result was made from (alt text); null for uploads'),
    name: z
      .string()
      .nullable()
      .describe(
        "An upload's file name as sent (a direct upload's, or a URL's last segment); null for results and for uploads stored before names were kept",
      ),
  })
  .describe('An asset of the library');

export const libraryPageSchema = z
  .object({ items: z.array(libraryAssetSchema).describe('Newest first'), ...pageFields })
  .describe('Library page');

export type LibraryAsset = z.infer<typeof libraryAssetSchema>;
export type LibraryPage = z.infer<typeof libraryPageSchema>;
