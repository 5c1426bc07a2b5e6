/**
 * Smart collections (issue 37): a saved search of Saved works, by name, per account — the page's
 * filters (search text, model, mode, dates, starred, collection) kept on the server, so every
 * device of the account lists them beside the grid. The website's own API (/web/api).
 */
import { z } from 'zod';
import { GENERATION_MODES } from '../domain/generation-modes.js';
import { MAX_COLLECTION_NAME } from './curation.js';
import { fieldError } from './field-error.js';

/** Most smart collections an account keeps. */
export const MAX_SMART_COLLECTIONS = 100;

/** Optional text: trimmed, and absent when empty. */
const text = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .max(max, `must be at most ${max} characters`)
    .optional()
    .transform((raw) => raw?.trim() || undefined);

/** A real calendar day (`format: date`), or empty for none. */
const day = (what: string) =>
  z
    .union([z.iso.date(), z.literal('')], { error: 'must be a date (YYYY-MM-DD)' })
    .optional()
    .transform((raw) => raw || undefined)
    .describe(what);

/** The saved filters, as a request sends them: empty fields read as absent, unknown ones are ignored. */
export const smartFiltersBodySchema = z
  .looseObject({
    q: text(200).describe("Search text: only works whose prompt has these words (as Saved works' search)"),
    model: text(100).describe('Only works made with this model id'),
    mode: z
      .enum([...GENERATION_MODES, ''], { error: 'must be text, edit or fusion' })
      .optional()
      .transform((mode) => mode || undefined)
      .describe('Only works made in this mode'),
    from: day("Only works made on or after this day (the viewer's local day, YYYY-MM-DD)"),
    to: day("Only works made on or before this day (the viewer's local day, YYYY-MM-DD)"),
    starred: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .transform((starred) => starred || undefined)
      .describe('`true`: only starred works'),
    collection: text(64).describe('Only works in this collection of the account (col_…)'),
  })
  .transform(({ q, model, mode, from, to, starred, collection }) => ({
    ...(q !== undefined && { q }),
    ...(model !== undefined && { model }),
    ...(mode !== undefined && { mode }),
    ...(from !== undefined && { from }),
    ...(to !== undefined && { to }),
    ...(starred !== undefined && { starred }),
    ...(collection !== undefined && { collection }),
  }))
  .refine((filters) => Object.keys(filters).length > 0, 'must set at least one filter')
  .describe('The filters of Saved works a smart collection opens with');

/** The saved filters, as an answer carries them (absent fields are not set). */
export const smartFiltersSchema = z
  .object({
    q: z.string().optional(),
    model: z.string().optional(),
    mode: z.enum(GENERATION_MODES).optional(),
    from: z.string().optional().describe("YYYY-MM-DD, the viewer's local day"),
    to: z.string().optional().describe("YYYY-MM-DD, the viewer's local day, included"),
    starred: z.literal(true).optional(),
    collection: z.string().optional().describe('Collection id (col_…)'),
  })
  .describe('The filters of Saved works a smart collection opens with (absent: not filtered on)');

const name = z
  .string({ error: fieldError('must be a string') })
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_COLLECTION_NAME, `must be at most ${MAX_COLLECTION_NAME} characters`)
  .describe("The smart collection's name: unique in the account, ignoring case");

export const smartCollectionSchema = z
  .object({
    id: z.string().describe('Smart collection id (scl_…)'),
    name: z.string(),
    filters: smartFiltersSchema,
    createdAt: z.number().int().describe('Milliseconds since the Unix epoch'),
    updatedAt: z.number().int().describe('Milliseconds since the Unix epoch: renamed or its search changed'),
  })
  .describe('A smart collection: a saved search of Saved works');

export const smartCollectionListSchema = z
  .object({ items: z.array(smartCollectionSchema).describe('By name') })
  .describe("The account's smart collections");

export const smartCollectionBodySchema = z
  .looseObject({ name, filters: smartFiltersBodySchema })
  .describe('A new smart collection: its name and filters');

export const smartCollectionPatchSchema = z
  .looseObject({ name: name.optional(), filters: smartFiltersBodySchema.optional() })
  .refine((body) => body.name !== undefined || body.filters !== undefined, {
    error: 'must change name or filters',
    path: ['name'],
  })
  .describe('A new name, new filters, or both');

export const smartCollectionParamsSchema = z.object({
  id: z.string().max(64).describe('Smart collection id (scl_…)'),
});

export type SmartFilters = z.output<typeof smartFiltersSchema>;
export type SmartCollection = z.output<typeof smartCollectionSchema>;
export type SmartCollectionList = z.output<typeof smartCollectionListSchema>;
