import { z } from 'zod';
import { GENERATION_MODES } from '../domain/generation-modes.js';
import { MAX_SEED } from '../domain/image-actions.js';
import { IMAGE_QUALITIES } from '../domain/image-qualities.js';
import { IMAGE_SIZES } from '../domain/image-sizes.js';
import { GENERATE_REFERENCE_RULES } from './cross-field-rules.js';
import { fieldError } from './field-error.js';
import { httpUrlField, withoutCredentials } from './formats.js';

export const MAX_PROMPT_LENGTH = 8000;

/** A seed as requests carry it (generate, actions). */
export const seedSchema = z
  .number({ error: 'must be an integer' })
  .int({ error: 'must be an integer' })
  .min(0, { error: `must be between 0 and ${MAX_SEED}` })
  .max(MAX_SEED, { error: `must be between 0 and ${MAX_SEED}` })
  .nullish();

/**
 * The shape of a generate body (spec §2.1). It validates every request and the OpenAPI document
 * is generated from it; its output is what the generations service receives. Catalog rules (which
 * model takes which mode, aspect, size, count) and the references are checked after it, by
 * `checkGenerateRequest`. `null` means "use the default"; unknown fields are ignored, for forward
 * compatibility.
 */
export const generateBodySchema = z
  .looseObject({
    prompt: z
      .string({ error: fieldError('must be a string') })
      // Documents what the refinement below checks: not blank (the length counts after trimming).
      .meta({ pattern: '\\S' })
      .describe('Generation prompt; non-empty after trimming, at most 8,000 characters'),
    model: z
      .string({ error: 'must be a string' })
      .nullish()
      .describe('Model id (GET /api/v1/models lists them); default base-image-2'),
    mode: z
      .enum(GENERATION_MODES, { error: 'must be one of text, edit, fusion' })
      .nullish()
      .describe(
        'text: no references; edit: exactly one imageUrl; fusion: 2 or more (only models that list it). Default text',
      ),
    aspect: z
      .string({ error: 'must be a string' })
      .nullish()
      .describe(
        "Ratio W:H from the model's list (default list: 1:1 2:3 3:2 3:4 4:3 9:16 16:9 21:9 4:5 5:4); default 1:1, except for edit and fusion, which keep the reference's shape when no aspect is given",
      ),
    imageSize: z
      .enum(IMAGE_SIZES, { error: 'must be one of 1K, 2K, 4K' })
      .nullish()
      .describe('About 1, 4 or 16 megapixels at the requested ratio; default 2K'),
    count: z
      .number({ error: 'must be an integer' })
      .int({ error: 'must be an integer' })
      .nullish()
      .describe("Images to make, 1 to the model's cap (default cap 4); one task per image. Default 1"),
    imageUrls: z
      .array(httpUrlField(), { error: 'must be an array of URLs' })
      .nullish()
      .describe(
        'Reference image URLs (absolute http/https): URLs from /upload, or public URLs Atelier fetches safely',
      ),
    maskUrl: httpUrlField()
      .nullish()
      .describe(
        'Extra field (not in the spec): a mask for an edit, on models whose catalog entry lists masks (GET /api/v1/models). A PNG the size of the image whose fully transparent pixels (alpha 0) say where to edit; the rest is kept. A URL from /upload, or a public URL Atelier fetches safely',
      ),
    quality: z
      .enum(IMAGE_QUALITIES, { error: 'must be one of low, medium, high, xhigh, max' })
      .nullish()
      .describe(
        "Extra field (not in the spec): the quality tier, one of the model's `qualities` (GET /api/v1/models); models without qualities refuse it. Default: the model's `defaultQuality`, else none (the upstream's auto; the reservation assumes the highest)",
      ),
    quote_id: z
      .string({ error: 'must be a string' })
      .nullish()
      .describe(
        "Extra field (not in the spec): a quote from POST /api/v1/quotes for this same body, on this account, unexpired; the request is then never charged more than the quote's max_cost_micros. A quote that does not match is a 400 naming quote_id",
      ),
    callbackUrl: httpUrlField()
      .refine(withoutCredentials, 'must not contain credentials')
      .nullish()
      .describe(
        'Optional webhook URL (absolute http(s), no user:password@): receives the signed task record when each task ends',
      ),
    parentId: z
      .string({ error: 'must be a string' })
      .min(1, { error: 'must not be empty' })
      .max(200, { error: 'must be at most 200 characters' })
      .nullish()
      .describe(
        "Extra field (not in the spec): refine an earlier work of this account — a generation id (gen_…, its first image) or one image's task id (tsk_…). The parent's image becomes the first reference (mode defaults to edit, fusion with more imageUrls); the new work names its parent in history (`parentId`, `parentTaskId`, `instruction`) and in its task records (`parentTaskId`)",
      ),
    instruction: z
      .string({ error: 'must be a string' })
      .max(MAX_PROMPT_LENGTH, { error: `must be at most ${MAX_PROMPT_LENGTH} characters` })
      .nullish()
      .describe(
        'Extra field (not in the spec): with parentId, the turn\'s instruction as the person phrased it ("make the sky darker"), kept in the lineage; default: the prompt',
      ),
    seed: seedSchema.describe(
      "Extra field (not in the spec): the seed of the first image (image i gets seed + i), 0 to 2147483647, on models whose entry says `seeds: true` (GET /api/v1/models); other models refuse it. Absent on such a model: Atelier draws one and records it (history's `seed`, the task record's `seed`). The same seed and settings give the same image where the upstream is deterministic",
    ),
  })
  // Once every field has its type (a refinement of the whole body runs only then, so a wrong type
  // is named first): the prompt's length after trimming.
  .superRefine(({ prompt }, ctx) => {
    const trimmed = prompt.trim();
    if (trimmed === '') ctx.addIssue({ code: 'custom', path: ['prompt'], message: 'must not be empty' });
    else if (trimmed.length > MAX_PROMPT_LENGTH)
      ctx.addIssue({
        code: 'custom',
        path: ['prompt'],
        message: `must be at most ${MAX_PROMPT_LENGTH} characters`,
      });
  })
  .meta({
    id: 'GenerateRequest',
    description: 'Generation request',
    allOf: GENERATE_REFERENCE_RULES,
    examples: [{ prompt: 'A lighthouse at dawn, watercolour', aspect: '16:9', imageSize: '2K', count: 2 }],
  });

export type GenerateBody = z.output<typeof generateBodySchema>;
