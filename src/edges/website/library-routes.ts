import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { assetParamsSchema } from '../../base/contract/assets.js';
import {
  savedWorkSchema,
  WEBSITE_TAG,
  websiteSession,
  workParamsSchema,
} from '../../base/contract/website.js';
import { NotFound } from '../../base/domain/errors.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse, noContent } from '../http/route-responses.js';
import type { WebsiteServices } from './website-services.js';

/**
 * A saved work by id (the lightbox's "Open the work" link, `/works?work=<id>`) and deleting an
 * upload from the library (issue 30): signed-in routes over the same services as /api/v1.
 */
export async function libraryRoutes(app: FastifyInstance, { services }: { services: WebsiteServices }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { creations, assets } = services;

  api.get(
    '/works/:id',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'A saved work',
        description:
          "One of the account's saved works, with its tasks and marks: what a work's own link (`/works?work=<id>`) opens. A deleted work, another account's or an unknown id is 404.",
        security: websiteSession,
        params: workParamsSchema,
        response: {
          200: jsonResponse('The saved work', savedWorkSchema),
          ...errorResponses(['invalid_request', 'unauthorized', 'not_found']),
        },
      },
    },
    async (request) => {
      const work = await creations.savedWork(accountOf(request).id, request.params.id);
      if (!work) throw new NotFound('Work not found');
      return work;
    },
  );

  api.delete(
    '/assets/:id',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Delete an upload',
        description:
          "DELETE /api/v1/assets/{id} for the signed-in account: takes an upload out of the library; its file stays at its URL, so works that used it as a reference keep it. A result answers 409 (it belongs to its work: delete the work); another account's id, or an unknown one, 404.",
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
