import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  OPENAI_TAG,
  openAiModelParamsSchema,
  openAiModelSchema,
  openAiModelsSchema,
} from '../../base/contract/openai.js';
import type { Catalog } from '../../capabilities/catalog/index.js';
import { jsonResponse } from '../http/route-responses.js';
import { openAiModel, openAiModelList } from './models.js';
import { openAiErrorResponses } from './route-docs.js';

/** GET /models and /models/:model: the catalog and its aliases in OpenAI's shape. */
export function modelRoutes(app: FastifyInstance, catalog: Catalog) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.get(
    '/models',
    {
      schema: {
        tags: [OPENAI_TAG],
        operationId: 'openAiModels',
        summary: 'List models (OpenAI shape)',
        description:
          'The answer of GET /api/v1/models (OpenAI’s list with Atelier’s catalog fields and default_model), then each model alias (an OpenAI or Google model id) as an entry with alias_of. Errors in OpenAI’s shape.',
        response: {
          200: jsonResponse('The catalog and its aliases as an OpenAI model list', openAiModelsSchema),
          ...openAiErrorResponses([401, 403]),
        },
      },
    },
    async () => openAiModelList(catalog),
  );

  api.get(
    '/models/:model',
    {
      schema: {
        tags: [OPENAI_TAG],
        operationId: 'openAiModel',
        summary: 'Retrieve a model (OpenAI shape)',
        description:
          'A model of the catalog, or an alias (with alias_of), as GET /v1/models lists it; an unknown id is a 404 model_not_found. Errors in OpenAI’s shape.',
        params: openAiModelParamsSchema,
        response: {
          200: jsonResponse('The model', openAiModelSchema),
          ...openAiErrorResponses([401, 403, 404]),
        },
      },
    },
    async (request) => openAiModel(catalog, request.params.model),
  );
}
