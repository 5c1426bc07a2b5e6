import type { Models } from '../contract/catalog.js';
import { type Catalog, DEFAULT_MODEL_ID } from './catalog.js';

/** The catalog as GET /models answers it, on /api/v1 and on the OpenAI-compatible /v1 alike. */
export function modelList(catalog: Catalog): Models {
  return {
    object: 'list',
    data: catalog.models.map((m) => ({
      id: m.id,
      object: 'model' as const,
      created: 0,
      owned_by: m.provider,
      name: m.displayName ?? m.id,
      modes: m.modes,
      aspects: m.aspects,
      sizes: m.sizes,
      maxCount: m.maxCount,
      maxReferences: m.maxReferences,
      masks: m.masks,
    })),
    default_model: DEFAULT_MODEL_ID,
  };
}
