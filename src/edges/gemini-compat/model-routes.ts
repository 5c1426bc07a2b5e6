import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  GEMINI_TAG,
  geminiModelParamsSchema,
  geminiModelSchema,
  geminiModelsSchema,
  geminiSecurity,
} from '../../base/contract/gemini.js';
import type { Catalog } from '../../capabilities/catalog/index.js';
import { jsonResponse } from '../http/route-responses.js';
import { geminiErrorResponses } from './error-responses.js';
import { GeminiCompatError } from './gemini-errors.js';
import { geminiModel, geminiModelList } from './models.js';

/** GET /models and /models/{model}: the catalog in Google's list shape (`/v1beta` only). */
export function registerModelRoutes(parent: FastifyInstance, catalog: Catalog) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/models',
    {
      schema: {
        tags: [GEMINI_TAG],
        security: geminiSecurity,
        operationId: 'geminiModels',
        summary: 'List models (Gemini shape)',
        description:
          'The catalog as Google’s model list (name models/<id>), then each alias (an OpenAI or Google model id) as a model of its own, in one page: pageSize is ignored, and no nextPageToken is issued, so a pageToken is 400 INVALID_ARGUMENT.',
        response: {
          200: jsonResponse('The catalog and its aliases as a Gemini model list', geminiModelsSchema),
          ...geminiErrorResponses([400, 401]),
        },
      },
    },
    async (request) => {
      // A page token Atelier reads back must be one it issued, and it issues none.
      const { pageToken } = request.query as { pageToken?: unknown };
      if (pageToken !== undefined && pageToken !== '') {
        throw new GeminiCompatError(
          400,
          'Invalid pageToken: the model list is one page and issues no page token; list without one.',
          'invalid_request',
          'pageToken',
        );
      }
      return geminiModelList(catalog);
    },
  );

  app.get(
    '/models/:model',
    {
      schema: {
        tags: [GEMINI_TAG],
        security: geminiSecurity,
        operationId: 'geminiModel',
        summary: 'Get a model (Gemini shape)',
        description:
          'A model of the catalog, or an alias, as GET /v1beta/models lists it; unknown: 404 NOT_FOUND.',
        params: geminiModelParamsSchema,
        response: {
          200: jsonResponse('The model', geminiModelSchema),
          ...geminiErrorResponses([401, 404]),
        },
      },
    },
    async (request) => geminiModel(catalog, request.params.model),
  );
}
