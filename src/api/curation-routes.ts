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
import type { Curation } from '../curation/curation-service.js';
import { type ZipDownloads, zipHeaders } from '../downloads/zip-download.js';
import { accountOf } from '../http/authentication.js';
import {
  AUTH_ERRORS,
  errorResponses,
  jsonResponse,
  noContent,
  WRITE_AUTH_ERRORS,
} from '../http/route-responses.js';

const TAG = 'Favourites and collections';

/**
 * Stars (PUT/DELETE /generations/{id}/star), collections (GET/POST /collections,
 * PATCH/DELETE /collections/{id}, PUT/DELETE /collections/{id}/items/{generation_id}) and the ZIP of
 * a selection (GET /downloads/zip). Another account's work or collection answers 404 as a missing one.
 */
export async function curationRoutes(
  parent: FastifyInstance,
  { curation, zipDownloads, now }: { curation: Curation; zipDownloads: ZipDownloads; now: () => number },
) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const changed = (description: string) => ({
    204: noContent(description),
    ...errorResponses(['invalid_request', ...WRITE_AUTH_ERRORS, 'not_found']),
  });

  for (const [method, starred] of [
    ['put', true],
    ['delete', false],
  ] as const) {
    app[method](
      '/generations/:id/star',
      {
        schema: {
          tags: [TAG],
          operationId: starred ? 'starGeneration' : 'unstarGeneration',
          summary: starred ? 'Star a generation' : 'Take the star off a generation',
          description:
            'History items then say `starred`, and GET /history?starred=true lists the starred ones. Doing it twice is harmless.',
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

  app.get(
    '/collections',
    {
      schema: {
        tags: [TAG],
        operationId: 'collections',
        summary: "The account's collections",
        response: {
          200: jsonResponse('The collections, by name', collectionListSchema),
          ...errorResponses(AUTH_ERRORS),
        },
      },
    },
    async (request) => ({ items: await curation.list(accountOf(request).id) }),
  );

  app.post(
    '/collections',
    {
      schema: {
        tags: [TAG],
        operationId: 'createCollection',
        summary: 'Create a collection',
        description:
          'An empty named collection. Names are unique in the account, ignoring case (409 conflict).',
        body: collectionBodySchema,
        response: {
          201: jsonResponse('Created', collectionSchema),
          ...errorResponses(['invalid_request', ...WRITE_AUTH_ERRORS, 'conflict']),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await curation.create(accountOf(request).id, request.body.name)),
  );

  app.patch(
    '/collections/:id',
    {
      schema: {
        tags: [TAG],
        operationId: 'renameCollection',
        summary: 'Rename a collection',
        params: collectionParamsSchema,
        body: collectionBodySchema,
        response: {
          200: jsonResponse('Renamed', collectionSchema),
          ...errorResponses(['invalid_request', ...WRITE_AUTH_ERRORS, 'not_found', 'conflict']),
        },
      },
    },
    async (request) => curation.rename(accountOf(request).id, request.params.id, request.body.name),
  );

  app.delete(
    '/collections/:id',
    {
      schema: {
        tags: [TAG],
        operationId: 'deleteCollection',
        summary: 'Delete a collection',
        description: 'The collection goes; its works stay.',
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
    app[method](
      '/collections/:id/items/:generation_id',
      {
        schema: {
          tags: [TAG],
          operationId: member ? 'addToCollection' : 'removeFromCollection',
          summary: member ? 'Add a generation to a collection' : 'Take a generation out of a collection',
          description:
            'History items list the collections they are in (`collections`), and GET /history?collection={id} lists a collection. Doing it twice is harmless.',
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

  app.get(
    '/downloads/zip',
    {
      schema: {
        tags: [TAG],
        operationId: 'downloadZip',
        summary: 'Download generations and assets as one ZIP',
        description: `Streams a ZIP of the original files of the works (every completed image of each) and assets named, at most ${MAX_ZIP_ITEMS} ids in all: each named from its prompt (ASCII, lower case, words joined by "-", unique, with its extension; an upload by its own name), then metadata.json listing each file's prompt, model, size, bytes, date, source and URL. An id that is not one of the account's saved works or assets is a 404 before anything is sent.`,
        querystring: zipQuerySchema,
        response: {
          200: zipResponse,
          ...errorResponses(['invalid_request', ...AUTH_ERRORS, 'not_found']),
        },
      },
    },
    async (request, reply) => {
      const { works, assets } = request.query;
      const zip = await zipDownloads.open(
        accountOf(request).id,
        { generationIds: works, assetIds: assets },
        now(),
      );
      // A stream: sent as written, past the serializer (the schema only documents it).
      return (reply as FastifyReply).headers(zipHeaders(zip.name)).send(zip.stream);
    },
  );
}
