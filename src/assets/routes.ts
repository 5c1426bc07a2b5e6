import type { FastifyInstance } from 'fastify';
import { accountOf } from '../http/authentication.js';
import { ApiError } from '../http/errors.js';
import { integerParam, pageParam } from '../http/query.js';
import type { AssetKind, AssetsRepository } from './assets-repository.js';

/** GET /assets: the account's uploads and results, newest first, paged like history. */
export async function assetRoutes(app: FastifyInstance, { assets }: { assets: AssetsRepository }) {
  app.get<{ Querystring: Record<string, unknown> }>('/assets', async (request) => {
    const { page, storePage } = pageParam(request.query);
    const limit = integerParam(request.query, 'limit', { default: 20, min: 1, max: 50 });
    const kind = request.query.kind;
    if (kind !== undefined && kind !== 'upload' && kind !== 'result') {
      throw new ApiError('invalid_request', 'kind must be upload or result');
    }
    const { items, total } = await assets.page(accountOf(request).id, {
      page: storePage,
      limit,
      kind: kind as AssetKind | undefined,
    });
    return { items, total, page, limit, total_pages: Math.ceil(total / limit) };
  });
}
