import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Catalog } from '../catalog/catalog.js';
import { DEFAULT_MODEL_ID } from '../catalog/catalog.js';
import { type Models, modelsSchema } from '../contract/catalog.js';
import { AUTH_ERRORS, errorResponses, jsonResponse } from '../http/route-responses.js';

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
    })),
    default_model: DEFAULT_MODEL_ID,
  };
}

const modelsRouteSchema = {
  tags: ['Models'],
  operationId: 'models',
  summary: 'The model catalog',
  description:
    "OpenAI's list shape ({object: \"list\", data}) with Atelier's catalog fields on each model; GET /v1/models answers the same with OpenAI's error shape.",
  response: {
    200: jsonResponse('Models with their modes, aspects, sizes and caps', modelsSchema),
    ...errorResponses(AUTH_ERRORS),
  },
};

/** GET /models: the catalog as callers need it (beyond the spec; the website and agents read it). */
export async function catalogRoutes(app: FastifyInstance, { catalog }: { catalog: Catalog }) {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get('/models', { schema: modelsRouteSchema }, async () => modelList(catalog));
}
