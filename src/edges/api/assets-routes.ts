import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { assetParamsSchema, assetsPageSchema, assetsQuerySchema } from '../../base/contract/assets.js';
import { storePageOf } from '../../base/contract/paging.js';
import type { AssetsRepository } from '../../capabilities/assets/index.js';
import { accountOf } from '../http/authentication.js';
import {
  AUTH_ERRORS,
  errorResponses,
  jsonResponse,
  noContent,
  WRITE_AUTH_ERRORS,
} from '../http/route-responses.js';

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

const deleteAssetSchema = {
  tags: ['Assets'],
  operationId: 'deleteAsset',
  summary: 'Delete an upload from the asset library',
  description:
    "Takes one of the account's uploads out of its library. Its file and renditions leave storage at the next lifecycle run (its URL then answers 410), unless another row still uses it: upload files are content-addressed and shared by identical bytes, and works that used it as a reference keep it (they keep showing it and can be re-run) until the last of them goes. A result belongs to its work: deleting one answers 409 (delete the work on the website instead). Another account's id, or an unknown one, is 404.",
  params: assetParamsSchema,
  response: {
    204: noContent('Deleted'),
    ...errorResponses(['invalid_request', ...WRITE_AUTH_ERRORS, 'not_found', 'conflict']),
  },
};

/** GET /assets: the account's uploads and results, newest first, paged like history; DELETE /assets/{id}: an upload. */
export async function assetRoutes(
  app: FastifyInstance,
  { assets }: { assets: Pick<AssetsRepository, 'page' | 'deleteUpload'> },
) {
  app
    .withTypeProvider<ZodTypeProvider>()
    .delete('/assets/:id', { schema: deleteAssetSchema }, async (request, reply) => {
      await assets.deleteUpload(accountOf(request).id, request.params.id);
      return reply.code(204).send(null);
    });
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
