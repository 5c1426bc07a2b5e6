import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { catalogModelSchema, modelsSchema } from '../../base/contract/catalog.js';
import { NotFound } from '../../base/domain/errors.js';
import type { Catalog } from '../../capabilities/catalog/index.js';
import {
  catalogModel,
  generationModels,
  isGenerationModel,
  modelList,
} from '../../capabilities/catalog/index.js';
import { AUTH_ERRORS, errorResponses, jsonResponse } from '../http/route-responses.js';

const FACTS =
  'modes, aspects, sizes, maxCount, maxReferences, masks, qualities (and defaultQuality), price (micro-dollars per image by size and quality, per million tokens, with asOf and source) and lifecycle (released, deprecated, shutdown, replacement)';

const modelsRouteSchema = {
  tags: ['Models'],
  operationId: 'models',
  summary: 'The model catalog',
  description: `OpenAI's list shape ({object: "list", data}) with Atelier's catalog facts on each model: ${FACTS}. GET /v1/models answers the same with OpenAI's error shape.`,
  response: {
    200: jsonResponse('Models with what they can do and what they cost', modelsSchema),
    ...errorResponses(AUTH_ERRORS),
  },
};

const modelRouteSchema = {
  tags: ['Models'],
  operationId: 'model',
  summary: 'One model of the catalog',
  description: `A model by id or alias (an alias answers the model it names, under its own id): ${FACTS}. Unknown: 404 not_found.`,
  params: z.object({ id: z.string().describe('A model id or alias') }),
  response: {
    200: jsonResponse('The model', catalogModelSchema),
    ...errorResponses([...AUTH_ERRORS, 'not_found']),
  },
};

/** GET /models and /models/{id}: the catalog as callers need it (the website and agents read it). */
export async function catalogRoutes(app: FastifyInstance, { catalog }: { catalog: Catalog }) {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.get('/models', { schema: modelsRouteSchema }, async () => modelList(catalog));
  routes.get('/models/:id', { schema: modelRouteSchema }, async (request) => {
    const model = catalog.get(request.params.id);
    if (!model || !isGenerationModel(model)) {
      throw new NotFound(
        `Unknown model "${request.params.id}"; available models: ${generationModels(catalog)
          .map((m) => m.id)
          .join(', ')} (and their aliases)`,
      );
    }
    return catalogModel(model);
  });
}
