import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  collectionBodySchema,
  collectionItemParamsSchema,
  collectionListSchema,
  collectionParamsSchema,
  collectionSchema,
  generationParamsSchema,
  MAX_ZIP_ITEMS,
  zipQuerySchema,
  zipResponse,
} from '../contract/curation.js';
import { WEBSITE_TAG, websiteSession } from '../contract/website.js';
import { zipHeaders } from '../downloads/zip-download.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse, noContent } from '../http/route-responses.js';
import type { WebsiteServices } from './website-services.js';

/**
 * The website's stars, collections and ZIP downloads (issue 30): /api/v1's routes of the same
 * names for the signed-in account (a work's star is at /works/{id}/star), through the same services.
 */
export async function curationRoutes(app: FastifyInstance, { services }: { services: WebsiteServices }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { curation, zipDownloads } = services;
  const changeErrors = ['invalid_request', 'unauthorized', 'forbidden'] as const;
  const changed = (description: string) => ({
    204: noContent(description),
    ...errorResponses([...changeErrors, 'not_found']),
  });

  for (const [method, starred] of [
    ['put', true],
    ['delete', false],
  ] as const) {
    api[method](
      '/works/:id/star',
      {
        schema: {
          tags: [WEBSITE_TAG],
          summary: starred ? 'Star a saved work' : 'Take the star off a saved work',
          description: `${starred ? 'PUT' : 'DELETE'} /api/v1/generations/{id}/star for the signed-in account.`,
          security: websiteSession,
          params: generationParamsSchema,
          response: changed(starred ? 'Starred' : 'Not starred'),
        },
      },
      async (request, reply) => {
        await curation.setStar(accountOf(request).id, request.params.id, starred);
        return reply.code(204).send(null);
      },
    );
  }

  api.get(
    '/collections',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Collections',
        description: 'GET /api/v1/collections for the signed-in account.',
        security: websiteSession,
        response: {
          200: jsonResponse('The collections, by name', collectionListSchema),
          ...errorResponses(['unauthorized']),
        },
      },
    },
    async (request) => ({ items: await curation.list(accountOf(request).id) }),
  );

  api.post(
    '/collections',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Create a collection',
        description: 'POST /api/v1/collections for the signed-in account.',
        security: websiteSession,
        body: collectionBodySchema,
        response: {
          201: jsonResponse('Created', collectionSchema),
          ...errorResponses([...changeErrors, 'conflict']),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await curation.create(accountOf(request).id, request.body.name)),
  );

  api.patch(
    '/collections/:id',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Rename a collection',
        description: 'PATCH /api/v1/collections/{id} for the signed-in account.',
        security: websiteSession,
        params: collectionParamsSchema,
        body: collectionBodySchema,
        response: {
          200: jsonResponse('Renamed', collectionSchema),
          ...errorResponses([...changeErrors, 'not_found', 'conflict']),
        },
      },
    },
    async (request) => curation.rename(accountOf(request).id, request.params.id, request.body.name),
  );

  api.delete(
    '/collections/:id',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Delete a collection',
        description: 'DELETE /api/v1/collections/{id} for the signed-in account: its works stay.',
        security: websiteSession,
        params: collectionParamsSchema,
        response: changed('Deleted'),
      },
    },
    async (request, reply) => {
      await curation.remove(accountOf(request).id, request.params.id);
      return reply.code(204).send(null);
    },
  );

  for (const [method, member] of [
    ['put', true],
    ['delete', false],
  ] as const) {
    api[method](
      '/collections/:id/items/:generation_id',
      {
        schema: {
          tags: [WEBSITE_TAG],
          summary: member ? 'Add a saved work to a collection' : 'Take a saved work out of a collection',
          description: `${member ? 'PUT' : 'DELETE'} /api/v1/collections/{id}/items/{generation_id} for the signed-in account.`,
          security: websiteSession,
          params: collectionItemParamsSchema,
          response: changed(member ? 'In the collection' : 'Not in the collection'),
        },
      },
      async (request, reply) => {
        const { id, generation_id } = request.params;
        await curation.setMember(accountOf(request).id, id, generation_id, member);
        return reply.code(204).send(null);
      },
    );
  }

  api.get(
    '/downloads/zip',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Download saved works and library items as one ZIP',
        description: `GET /api/v1/downloads/zip for the signed-in account (at most ${MAX_ZIP_ITEMS} ids): a plain link, so the browser saves the stream to disk as it arrives.`,
        security: websiteSession,
        querystring: zipQuerySchema,
        response: { 200: zipResponse, ...errorResponses(['invalid_request', 'unauthorized', 'not_found']) },
      },
    },
    async (request, reply) => {
      const { works, assets } = request.query;
      const zip = await zipDownloads.open(
        accountOf(request).id,
        { generationIds: works, assetIds: assets },
        services.clock.now(),
      );
      // A stream: sent as written, past the serializer (the schema only documents it).
      return (reply as FastifyReply).headers(zipHeaders(zip.name)).send(zip.stream);
    },
  );
}
