import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  MAX_SMART_COLLECTIONS,
  smartCollectionBodySchema,
  smartCollectionListSchema,
  smartCollectionParamsSchema,
  smartCollectionPatchSchema,
  smartCollectionSchema,
} from '../../base/contract/smart-collections.js';
import { WEBSITE_TAG, websiteSession } from '../../base/contract/website/shared.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse, noContent } from '../http/route-responses.js';
import { createSmartCollections } from './smart-collections.js';
import type { WebsiteServices } from './website-services.js';

const PATH = '/smart-collections';
const ONE = `${PATH}/:id`;

/**
 * Smart collections (issue 37): saved searches of Saved works, listed beside the grid; opening one
 * applies its filters to GET /web/api/works.
 */
export async function smartCollectionRoutes(
  app: FastifyInstance,
  { services }: { services: WebsiteServices },
) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const smart = createSmartCollections({
    db: services.db,
    clock: services.clock,
    curation: services.curation,
  });
  const common = { tags: [WEBSITE_TAG], security: websiteSession };
  const changeErrors = ['invalid_request', 'unauthorized', 'forbidden'] as const;

  api.get(
    PATH,
    {
      schema: {
        ...common,
        summary: 'Smart collections',
        description: "The account's smart collections (saved searches of Saved works), by name.",
        response: {
          200: jsonResponse('Smart collections', smartCollectionListSchema),
          ...errorResponses(['unauthorized']),
        },
      },
    },
    async (request) => ({ items: await smart.list(accountOf(request).id) }),
  );

  api.post(
    PATH,
    {
      schema: {
        ...common,
        summary: 'Save a search as a smart collection',
        description: `Saves Saved works' filters under a name (unique in the account, ignoring case: 409 on a clash). At least one filter; a collection filter must name one of the account's collections. At most ${MAX_SMART_COLLECTIONS} per account (409 past it).`,
        body: smartCollectionBodySchema,
        response: {
          201: jsonResponse('Saved', smartCollectionSchema),
          ...errorResponses([...changeErrors, 'conflict']),
        },
      },
    },
    async (request, reply) => {
      const { name, filters } = request.body;
      return reply.code(201).send(await smart.create(accountOf(request).id, name, filters));
    },
  );

  api.patch(
    ONE,
    {
      schema: {
        ...common,
        summary: 'Rename a smart collection or change its search',
        description: 'A new name (409 when another of the account has it), new filters, or both.',
        params: smartCollectionParamsSchema,
        body: smartCollectionPatchSchema,
        response: {
          200: jsonResponse('Changed', smartCollectionSchema),
          ...errorResponses([...changeErrors, 'not_found', 'conflict']),
        },
      },
    },
    async (request) => smart.update(accountOf(request).id, request.params.id, request.body),
  );

  api.delete(
    ONE,
    {
      schema: {
        ...common,
        summary: 'Delete a smart collection',
        description: 'Deletes the saved search; no work changes.',
        params: smartCollectionParamsSchema,
        response: { 204: noContent('Deleted'), ...errorResponses([...changeErrors, 'not_found']) },
      },
    },
    async (request, reply) => {
      await smart.remove(accountOf(request).id, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
