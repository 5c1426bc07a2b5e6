import { z } from 'zod';

export const GENERATION_MODES = ['text', 'edit', 'fusion'] as const;
export const IMAGE_SIZES = ['1K', '2K', '4K'] as const;
export type GenerationMode = (typeof GENERATION_MODES)[number];
export type ImageSize = (typeof IMAGE_SIZES)[number];

/** A model as GET /models lists it. */
export const catalogModelSchema = z.object({
  id: z.string(),
  name: z.string(),
  modes: z.array(z.enum(GENERATION_MODES)),
  aspects: z.array(z.string()),
  sizes: z.array(z.enum(IMAGE_SIZES)),
  maxCount: z.number().int(),
  maxReferences: z.number().int(),
});

export type CatalogModel = z.output<typeof catalogModelSchema>;

export const modelsSchema = z
  .object({ default_model: z.string(), models: z.array(catalogModelSchema) })
  .meta({ id: 'Models', description: 'Model catalog' });

export type Models = z.output<typeof modelsSchema>;
