/**
 * Favourites and collections (issue 30): the wire shapes of stars and named collections of works,
 * shared by /api/v1 and the website's /web/api, and of the ZIP download of a selection.
 */
import { z } from 'zod';
import { fieldError } from './field-error.js';

export const MAX_COLLECTION_NAME = 100;
/** Most collections an account keeps. */
export const MAX_COLLECTIONS = 500;
/** Most works and assets one ZIP download names (a screenful of selections, not an export). */
export const MAX_ZIP_ITEMS = 200;

/** The listing filters a star and a collection add to history and saved works. */
export const curationQuery = {
  starred: z
    .enum(['true', 'false', ''], { error: 'must be true or false' })
    .optional()
    .transform((raw) => (raw === 'true' ? true : undefined))
    .describe('`true`: only starred works (`false` or absent: every work)'),
  collection: z
    .string({ error: 'must be a string' })
    .max(64, 'must be at most 64 characters')
    .optional()
    .transform((raw) => raw?.trim() || undefined)
    .describe('Only works in this collection (its id, col_…); an unknown id is a 404'),
};

/** The marks of a work, as history items and saved works carry them. */
export const curationFields = {
  starred: z.boolean().optional().describe('Whether the owner starred the work'),
  collections: z
    .array(z.string())
    .optional()
    .describe('Ids of the collections the work is in (see GET /api/v1/collections)'),
};

export const collectionSchema = z
  .object({
    id: z.string().describe('Collection id (col_…)'),
    name: z.string(),
    count: z.number().int().describe('How many works are in it'),
    createdAt: z.number().int().describe('Milliseconds since the Unix epoch'),
    updatedAt: z
      .number()
      .int()
      .describe('Milliseconds since the Unix epoch: renamed, or a work added or taken out'),
  })
  .meta({ id: 'Collection', description: 'A named collection of works' });

export const collectionListSchema = z
  .object({ items: z.array(collectionSchema).describe('By name') })
  .meta({ id: 'CollectionList', description: "The account's collections" });

export const collectionBodySchema = z
  .looseObject({
    name: z
      .string({ error: fieldError('must be a string') })
      .trim()
      .min(1, 'must not be empty')
      .max(MAX_COLLECTION_NAME, `must be at most ${MAX_COLLECTION_NAME} characters`)
      .describe("The collection's name: unique in the account, ignoring case"),
  })
  .describe('A collection name');

export const collectionParamsSchema = z.object({ id: z.string().describe('Collection id (col_…)') });
export const collectionItemParamsSchema = z.object({
  id: z.string().describe('Collection id (col_…)'),
  generation_id: z.string().describe('Generation id (gen_…)'),
});
export const generationParamsSchema = z.object({ id: z.string().describe('Generation id (gen_…)') });

/** The longest id a ZIP download names (gen_… and ast_… ids are far shorter). */
const MAX_ZIP_ID = 64;

/** The rule no JSON Schema of two separate lists can state, written where a client reads it. */
const ZIP_SELECTION_RULE = `works and assets together name at least one id and at most ${MAX_ZIP_ITEMS}`;
const NO_ZIP_ID = 'Name at least one id in works or assets';
const TOO_MANY_ZIP_IDS = `works and assets name more than ${MAX_ZIP_ITEMS} ids in all`;

/** The selection rule, whatever form the ids came in (a sentence each: no field is alone to blame). */
function zipSelection<T extends z.ZodType<{ works: string[]; assets: string[] }>>(schema: T) {
  return schema
    .refine((query) => query.works.length + query.assets.length > 0, {
      error: NO_ZIP_ID,
      path: ['works'],
      params: { sentence: true },
    })
    .refine((query) => query.works.length + query.assets.length <= MAX_ZIP_ITEMS, {
      error: TOO_MANY_ZIP_IDS,
      path: ['works'],
      params: { sentence: true },
    });
}

/** A ZIP download's selection: comma-separated ids in the query, so a plain link (or a read-only key) downloads. */
const idCsv = (what: string) =>
  z
    .string({ error: 'must be comma-separated ids' })
    .max(MAX_ZIP_ITEMS * (MAX_ZIP_ID + 1), 'names too many ids')
    .optional()
    .transform((raw) => (raw ?? '').split(',').flatMap((id) => (id.trim() ? [id.trim()] : [])))
    .describe(`${what}; ${ZIP_SELECTION_RULE}`);

export const zipQuerySchema = zipSelection(
  z.object({
    works: idCsv('Works (gen_…), comma-separated: every completed image of each'),
    assets: idCsv('Assets of the library (ast_…), comma-separated: uploads or results'),
  }),
);

const idList = (what: string) =>
  z
    .array(z.string().min(1, 'must not be empty').max(MAX_ZIP_ID, `must be at most ${MAX_ZIP_ID} characters`))
    .max(MAX_ZIP_ITEMS, `must name at most ${MAX_ZIP_ITEMS} ids`)
    .default([])
    .describe(`${what}; ${ZIP_SELECTION_RULE}`);

/**
 * The same selection as a JSON body (POST /downloads/zip): no request line to outgrow, so 200 ids
 * of any length fit where a link of the longest ids would pass the 16 kB a request line and its
 * headers may take (431).
 */
export const zipBodySchema = zipSelection(
  z.object({
    works: idList('Works (gen_…): every completed image of each'),
    assets: idList('Assets of the library (ast_…): uploads or results'),
  }),
).meta({ id: 'ZipSelection', description: `The works and assets to download: ${ZIP_SELECTION_RULE}` });

/** One file of the ZIP, as its metadata.json lists it. */
export const zipMetadataFileSchema = z.object({
  file: z.string().describe("The entry's name in the ZIP: the prompt slugged, unique, with the extension"),
  prompt: z.string().nullable().describe('null for uploads'),
  model: z.string().nullable().describe('null for uploads'),
  width: z.number().int(),
  height: z.number().int(),
  bytes: z.number().int(),
  content_type: z.string(),
  created_at: z.string().describe('ISO 8601, UTC'),
  source: z.enum(['api', 'web', 'upload']).describe('Generated through the API, on the website, or uploaded'),
  mode: z.string().nullable().describe('text, edit or fusion; null for uploads'),
  aspect: z.string().nullable().describe('The work\'s aspect ratio ("16:9"); null for uploads'),
  aspect_from_reference: z
    .boolean()
    .nullable()
    .describe(
      "true when the request named no aspect and the result kept its reference's shape (send no aspect to do the same); null for uploads",
    ),
  image_size: z.string().nullable().describe('The size asked for (1K, 2K, 4K); null for uploads'),
  image_count: z
    .number()
    .int()
    .nullable()
    .describe('How many images the request asked for; null for uploads'),
  references: z
    .array(z.string())
    .nullable()
    .describe("The request's reference image URLs (imageUrls), in order; null for uploads"),
  url: z.string().describe("The file's permanent URL"),
  generation_id: z.string().nullable(),
  asset_id: z.string(),
});

export const zipMetadataSchema = z
  .object({
    created_at: z.string().describe('When the ZIP was made (ISO 8601, UTC)'),
    files: z.array(zipMetadataFileSchema),
  })
  .describe('metadata.json, the last entry of every ZIP download');

export const zipResponse = {
  description:
    'A ZIP archive, streamed as it is written: the original files (stored, not recompressed), named from their prompts, then metadata.json',
  content: { 'application/zip': { schema: z.string().meta({ contentMediaType: 'application/zip' }) } },
};

export type Collection = z.output<typeof collectionSchema>;
export type CollectionList = z.output<typeof collectionListSchema>;
export type ZipMetadata = z.output<typeof zipMetadataSchema>;
export type ZipMetadataFile = z.output<typeof zipMetadataFileSchema>;
