import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { assetParamsSchema } from '../../base/contract/assets.js';
import { storePageOf } from '../../base/contract/paging.js';
import { libraryPageSchema, libraryQuerySchema } from '../../base/contract/website/library.js';
import { WEBSITE_TAG, websiteSession } from '../../base/contract/website/shared.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse, noContent } from '../http/route-responses.js';
import type { WebsiteServices } from './website-services.js';
import { workActionsRoute, workRoute, workVersionsRoute } from './works-routes.js';

/** The errors of a signed-in listing: a malformed query, no session. */
export const listingErrors = errorResponses(['invalid_request', 'unauthorized']);

/**
 * A saved work by id (the lightbox's "Open the work" link, `/works?work=<id>`), its versions and deleting an
 * upload from the library (issue 30): signed-in routes over the same services as /api/v1. (The
 * library's page is registered with the creation view's routes, where the document lists it.)
 */
export async function libraryRoutes(app: FastifyInstance, { services }: { services: WebsiteServices }) {
  workRoute(app, services);
  workVersionsRoute(app, services);
  workActionsRoute(app, services);
  deleteUploadRoute(app, services);
}

/** GET /assets: a page of the account's library (uploads and results). */
export function libraryPageRoute(app: FastifyInstance, services: WebsiteServices) {
  const { library } = services;
  app.withTypeProvider<ZodTypeProvider>().get(
    '/assets',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Library',
        description:
          "The account's uploads and the results of its saved works, newest first, each result with its prompt; searchable by prompt and filterable like saved works (prompt, model and mode filters match results only).",
        security: websiteSession,
        querystring: libraryQuerySchema,
        response: { 200: jsonResponse('A page of the library', libraryPageSchema), ...listingErrors },
      },
    },
    async (request) => {
      const { page, limit, kind, ...filters } = request.query;
      const { items, total } = await library.libraryPage(accountOf(request).id, {
        page: storePageOf(page),
        limit,
        filters,
        ...(kind ? { kind } : {}),
      });
      return { items, total, page, limit, total_pages: Math.ceil(total / limit) };
    },
  );
}

/** DELETE /assets/:id: an upload leaves the library (DELETE /api/v1/assets/{id}). */
function deleteUploadRoute(app: FastifyInstance, services: WebsiteServices) {
  const { assets } = services;
  app.withTypeProvider<ZodTypeProvider>().delete(
    '/assets/:id',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Delete an upload',
        description:
          "DELETE /api/v1/assets/{id} for the signed-in account: takes an upload out of the library; its file leaves storage at the next lifecycle run (410 then) unless works that used it as a reference, or another account's upload of the same bytes, still use it. A result answers 409 (it belongs to its work: delete the work); another account's id, or an unknown one, 404.",
        security: websiteSession,
        params: assetParamsSchema,
        response: {
          204: noContent('Deleted'),
          ...errorResponses(['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'conflict']),
        },
      },
    },
    async (request, reply) => {
      await assets.deleteUpload(accountOf(request).id, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
