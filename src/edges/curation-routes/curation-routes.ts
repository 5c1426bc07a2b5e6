import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  collectionBodySchema,
  collectionItemParamsSchema,
  collectionListSchema,
  collectionParamsSchema,
  collectionSchema,
  generationParamsSchema,
  zipBodySchema,
  zipQuerySchema,
  zipResponse,
} from '../../base/contract/curation.js';
import type { Curation } from '../../capabilities/curation/index.js';
import { type ZipDownloads, zipHeaders } from '../../use-cases/downloads/index.js';
import { accountOf } from '../http/authentication.js';
import type { ErrorType } from '../http/errors.js';
import { errorResponses, jsonResponse, noContent } from '../http/route-responses.js';
import type { ZodApp } from '../http/zod-app.js';

/** The curation routes, each documented by the edge that mounts them. */
export type CurationRoute =
  | 'star'
  | 'unstar'
  | 'collections'
  | 'create'
  | 'rename'
  | 'delete'
  | 'add'
  | 'remove'
  | 'zip'
  | 'zipPost';

/** What one route says of itself in the OpenAPI document. */
export interface CurationRouteDoc {
  operationId?: string;
  summary: string;
  description?: string;
}

export interface CurationRoutesOptions {
  curation: Curation;
  zipDownloads: ZipDownloads;
  now: () => number;
  /** Where a work's star is: /generations/:id/star on /api/v1, /works/:id/star on the website. */
  starPath: '/generations/:id/star' | '/works/:id/star';
  tags: string[];
  security?: Record<string, string[]>[];
  /** The errors of a read without a body (the ZIP adds invalid_request and not_found). */
  readErrors: readonly ErrorType[];
  /** The errors of a change (then not_found or conflict as each route may answer). */
  changeErrors: readonly ErrorType[];
  docs: Record<CurationRoute, CurationRouteDoc>;
}

/** What every curation route is built from: the options, and each route's documentation. */
interface CurationContext {
  app: ZodApp;
  options: CurationRoutesOptions;
  /** A route's documentation: tags, its own text, and security where the edge states one. */
  doc(route: CurationRoute): CurationRouteDoc & { tags: string[]; security?: Record<string, string[]>[] };
  /** The answers of a change with no body: 204, or its errors (not_found among them). */
  changed(description: string): ReturnType<typeof changeAnswers>;
}

function changeAnswers(changeErrors: readonly ErrorType[], description: string) {
  return {
    204: noContent(description),
    ...errorResponses([...changeErrors, 'not_found']),
  };
}

/**
 * Stars, collections and the ZIP of a selection, mounted by /api/v1 and by the website with their
 * own documentation: the same handlers over the same services. Another account's work or
 * collection answers 404 as a missing one.
 */
export function registerCurationRoutes(parent: FastifyInstance, options: CurationRoutesOptions) {
  const { tags, security, changeErrors, docs } = options;
  const context: CurationContext = {
    app: parent.withTypeProvider<ZodTypeProvider>(),
    options,
    doc: (route) => ({ tags, ...docs[route], ...(security ? { security } : {}) }),
    changed: (description) => changeAnswers(changeErrors, description),
  };
  starRoutes(context);
  collectionRoutes(context);
  memberRoutes(context);
  zipRoute(context);
}

/** PUT and DELETE of a work's star. */
function starRoutes({ app, options, doc, changed }: CurationContext) {
  const { curation, starPath } = options;
  for (const [method, starred] of [
    ['put', true],
    ['delete', false],
  ] as const) {
    app[method](
      starPath,
      {
        schema: {
          ...doc(starred ? 'star' : 'unstar'),
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
}

/** The collections: list, create, rename, delete. */
function collectionRoutes({ app, options, doc, changed }: CurationContext) {
  const { curation, readErrors, changeErrors } = options;
  app.get(
    '/collections',
    {
      schema: {
        ...doc('collections'),
        response: {
          200: jsonResponse('The collections, by name', collectionListSchema),
          ...errorResponses(readErrors),
        },
      },
    },
    async (request) => ({ items: await curation.list(accountOf(request).id) }),
  );

  app.post(
    '/collections',
    {
      schema: {
        ...doc('create'),
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

  app.patch(
    '/collections/:id',
    {
      schema: {
        ...doc('rename'),
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

  app.delete(
    '/collections/:id',
    { schema: { ...doc('delete'), params: collectionParamsSchema, response: changed('Deleted') } },
    async (request, reply) => {
      await curation.remove(accountOf(request).id, request.params.id);
      return reply.code(204).send(null);
    },
  );
}

/** PUT and DELETE of a work in a collection. */
function memberRoutes({ app, options, doc, changed }: CurationContext) {
  const { curation } = options;
  for (const [method, member] of [
    ['put', true],
    ['delete', false],
  ] as const) {
    app[method](
      '/collections/:id/items/:generation_id',
      {
        schema: {
          ...doc(member ? 'add' : 'remove'),
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
}

/**
 * GET /downloads/zip (the ids in the query: a plain link) and POST /downloads/zip (the same ids as
 * a JSON body, for selections whose link would outgrow the request line): the ZIP of a selection
 * of works and assets, streamed. POST only reads, so a read-only key may use it too.
 */
function zipRoute({ app, options, doc }: CurationContext) {
  const { zipDownloads, now, readErrors } = options;
  const response = {
    200: zipResponse,
    ...errorResponses(['invalid_request', ...readErrors, 'not_found']),
  };
  const send = async (
    request: FastifyRequest,
    reply: FastifyReply,
    { works, assets }: { works: string[]; assets: string[] },
  ) => {
    const zip = await zipDownloads.open(
      accountOf(request).id,
      { generationIds: works, assetIds: assets },
      now(),
    );
    // A stream: sent as written, past the serializer (the schema only documents it).
    return reply.headers(zipHeaders(zip.name)).send(zip.stream);
  };
  app.get(
    '/downloads/zip',
    { schema: { ...doc('zip'), querystring: zipQuerySchema, response } },
    (request, reply) => send(request, reply as FastifyReply, request.query),
  );
  app.post(
    '/downloads/zip',
    { config: { readsOnly: true }, schema: { ...doc('zipPost'), body: zipBodySchema, response } },
    (request, reply) => send(request, reply as FastifyReply, request.body),
  );
}
