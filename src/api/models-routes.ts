import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Catalog } from '../catalog/catalog.js';
import { modelList } from '../catalog/model-list.js';
import { modelsSchema } from '../contract/catalog.js';
import { AUTH_ERRORS, errorResponses, jsonResponse } from '../http/route-responses.js';

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
