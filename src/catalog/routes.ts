import type { FastifyInstance } from 'fastify';
import type { Catalog } from './catalog.js';
import { DEFAULT_MODEL_ID } from './catalog.js';

/** GET /models: the catalog as callers need it (beyond the spec; the website and agents read it). */
export async function catalogRoutes(app: FastifyInstance, { catalog }: { catalog: Catalog }) {
  app.get('/models', async () => ({
    default_model: DEFAULT_MODEL_ID,
    models: catalog.models.map((m) => ({
      id: m.id,
      name: m.displayName ?? m.id,
      modes: m.modes,
      aspects: m.aspects,
      sizes: m.sizes,
      maxCount: m.maxCount,
      maxReferences: m.maxReferences,
    })),
  }));
}
