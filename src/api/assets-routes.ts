import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AssetsRepository } from '../assets/assets-repository.js';
import { assetsPageSchema, assetsQuerySchema } from '../contract/assets.js';
import { storePageOf } from '../contract/paging.js';
import { accountOf } from '../http/authentication.js';
import { AUTH_ERRORS, errorResponses, jsonResponse } from '../http/route-responses.js';

const assetsSchema = {
  tags: ['Assets'],
  operationId: 'assets',
  summary: 'List the asset library (uploads and results)',
  querystring: assetsQuerySchema,
  response: {
    200: jsonResponse('A page of assets', assetsPageSchema),
    ...errorResponses(['invalid_request', ...AUTH_ERRORS]),
  },
};

/** GET /assets: the account's uploads and results, newest first, paged like history. */
export async function assetRoutes(app: FastifyInstance, { assets }: { assets: AssetsRepository }) {
  app.withTypeProvider<ZodTypeProvider>().get('/assets', { schema: assetsSchema }, async (request) => {
    const { page, limit, kind } = request.query;
    const { items, total } = await assets.page(accountOf(request).id, {
      page: storePageOf(page),
      limit,
      kind,
    });
    return { items, total, page, limit, total_pages: Math.ceil(total / limit) };
  });
}
