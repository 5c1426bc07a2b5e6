import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Catalog } from '../../catalog/catalog.js';
import { DEFAULT_MODEL_ID } from '../../catalog/catalog.js';
import { modelsSchema } from '../../contract/catalog.js';
import { AUTH_ERRORS, errorResponses, jsonResponse } from '../route-responses.js';

const modelsRouteSchema = {
  tags: ['Models'],
  operationId: 'models',
  summary: 'The model catalog',
  response: {
    200: jsonResponse('Models with their modes, aspects, sizes and caps', modelsSchema),
    ...errorResponses(AUTH_ERRORS),
  },
};

/** GET /models: the catalog as callers need it (beyond the spec; the website and agents read it). */
export async function catalogRoutes(app: FastifyInstance, { catalog }: { catalog: Catalog }) {
  app.withTypeProvider<ZodTypeProvider>().get('/models', { schema: modelsRouteSchema }, async () => ({
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
