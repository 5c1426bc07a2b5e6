import { z } from 'zod';
import { GENERATION_MODES } from '../domain/generation-modes.js';
import { IMAGE_SIZES } from '../domain/image-sizes.js';

/**
 * A model as GET /models lists it: an OpenAI model object (`id`, `object`, `created`, `owned_by`)
 * that also carries Atelier's catalog fields, so OpenAI tools and Atelier's own callers read one shape.
 */
export const catalogModelSchema = z
  .object({
    id: z.string(),
    object: z.literal('model'),
    created: z
      .number()
      .int()
      .describe('Unix seconds; always 0: a catalog entry has no creation date (OpenAI requires the field)'),
    owned_by: z
      .string()
      .describe(
        'The provider that renders it (local, gemini, openai, replicate, fal, or an OpenAI-compatible upstream named in the catalog)',
      ),
    name: z.string(),
    modes: z.array(z.enum(GENERATION_MODES)),
    aspects: z.array(z.string()),
    sizes: z.array(z.enum(IMAGE_SIZES)),
    maxCount: z.number().int(),
    maxReferences: z.number().int(),
    masks: z
      .boolean()
      .describe(
        'Edits take a mask (maskUrl; mask on /v1/images/edits): fully transparent pixels say where to edit',
      ),
  })
  .meta({ id: 'CatalogModel', description: 'A model of the catalog (an OpenAI model object)' });

export type CatalogModel = z.output<typeof catalogModelSchema>;

export const modelsSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(catalogModelSchema),
    default_model: z.string().describe('The model used when a request names none'),
  })
  .meta({ id: 'Models', description: "Model catalog, in OpenAI's list shape" });

export type Models = z.output<typeof modelsSchema>;
