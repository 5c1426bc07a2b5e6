import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ACTIONS_DESCRIPTION, actionBodySchema, workIdParams } from '../../base/contract/actions.js';
import { GENERATE_ERRORS } from '../../base/contract/generate-errors.js';
import { generateResponseSchema, versionsSchema } from '../../base/contract/generations.js';
import { storePageOf } from '../../base/contract/paging.js';
import { WEBSITE_TAG, websiteSession } from '../../base/contract/website/shared.js';
import {
  savedWorkSchema,
  savedWorksPageSchema,
  workParamsSchema,
  worksQuerySchema,
} from '../../base/contract/website/works.js';
import { Gone, NotFound } from '../../base/domain/errors.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse, noContent } from '../http/route-responses.js';
import { traceparentOf } from '../http/traceparent.js';
import type { WebsiteServices } from './website-services.js';

// Saved works (/works): registered by creation-routes (the page, deleting) and library-routes
// (one work by id), in the order the API document lists them.

/** GET /works: a page of the account's saved works, searched and filtered. */
export function savedWorksRoute(app: FastifyInstance, services: WebsiteServices) {
  const { creations } = services;
  app.withTypeProvider<ZodTypeProvider>().get(
    '/works',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Saved works',
        description:
          "The account's generations not deleted, newest first, each with every task's record, its star and its collections; searchable by prompt text and filterable by model, mode, creation time, star and collection (an unknown collection is a 404).",
        security: websiteSession,
        querystring: worksQuerySchema,
        response: {
          200: jsonResponse('A page of saved works', savedWorksPageSchema),
          ...errorResponses(['invalid_request', 'unauthorized', 'not_found']),
        },
      },
    },
    async (request) => {
      const { page, limit, ...filters } = request.query;
      const storePage = storePageOf(page);
      return { ...(await creations.savedWorks(accountOf(request).id, storePage, limit, filters)), page };
    },
  );
}

/** DELETE /works/:id: a generation leaves saved works and the library. */
export function deleteWorkRoute(app: FastifyInstance, services: WebsiteServices) {
  const { generations } = services;
  app.withTypeProvider<ZodTypeProvider>().delete(
    '/works/:id',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Delete a saved work',
        description:
          'Takes a generation out of saved works and the library; history keeps it, marked `removed`, and its files stay at their URLs. Deleting twice is harmless.',
        security: websiteSession,
        params: workParamsSchema,
        response: {
          204: noContent('Deleted'),
          ...errorResponses(['unauthorized', 'forbidden', 'not_found']),
        },
      },
    },
    async (request, reply) => {
      await generations.remove(accountOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
}

/** GET /works/:id: one saved work (a work's own link). */
export function workRoute(app: FastifyInstance, services: WebsiteServices) {
  const { creations } = services;
  app.withTypeProvider<ZodTypeProvider>().get(
    '/works/:id',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'A saved work',
        description:
          "One of the account's saved works, with its tasks and marks: what a work's own link (`/works?work=<id>`) opens. A work whose files were removed (deleted past its Undo window, or expired by retention) is 410 gone; one deleted within its Undo window, another account's or an unknown id is 404.",
        security: websiteSession,
        params: workParamsSchema,
        response: {
          200: jsonResponse('The saved work', savedWorkSchema),
          ...errorResponses(['invalid_request', 'unauthorized', 'not_found', 'gone']),
        },
      },
    },
    async (request) => {
      const accountId = accountOf(request).id;
      const work = await creations.savedWork(accountId, request.params.id);
      if (work) return work;
      if (await creations.isPurged(accountId, request.params.id))
        throw new Gone('This work was removed with its files (deleted, or past its retention)');
      throw new NotFound('Work not found');
    },
  );
}

/** GET /works/:id/versions: the work's lineage (the lightbox's versions strip). */
export function workVersionsRoute(app: FastifyInstance, services: WebsiteServices) {
  const { creations } = services;
  app.withTypeProvider<ZodTypeProvider>().get(
    '/works/:id/versions',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: "A work's versions",
        description:
          "GET /api/v1/history/{id}/versions for the signed-in account: the chain the work belongs to (what it refines and every refinement of them), oldest first, as history items with `parentId`, `parentTaskId` and `instruction` where a version has a parent. Deleted versions stay listed, marked `removed` (deleting a version never deletes its parent). Another account's id or an unknown one is 404.",
        security: websiteSession,
        params: workParamsSchema,
        response: {
          200: jsonResponse("The work's versions", versionsSchema),
          ...errorResponses(['invalid_request', 'unauthorized', 'not_found']),
        },
      },
    },
    async (request) => {
      const versions = await creations.versions(accountOf(request).id, request.params.id);
      if (!versions) throw new NotFound('Work not found');
      return { versions };
    },
  );
}

/** POST /works/:id/actions: POST /api/v1/generations/{id}/actions for the signed-in account, labelled `web`. */
export function workActionsRoute(app: FastifyInstance, services: WebsiteServices) {
  const { generations } = services;
  app.withTypeProvider<ZodTypeProvider>().post(
    '/works/:id/actions',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Act on an image of a work',
        description: `POST /api/v1/generations/{id}/actions for the signed-in account, its new work labelled \`web\`. ${ACTIONS_DESCRIPTION}`,
        security: websiteSession,
        params: workIdParams,
        body: actionBodySchema,
        response: {
          200: jsonResponse('Tasks created', generateResponseSchema),
          ...errorResponses([...GENERATE_ERRORS, 'unauthorized', 'forbidden', 'not_found']),
        },
      },
    },
    async (request) => {
      const answer = await generations.act(
        accountOf(request),
        request.params.id,
        request.body,
        'web',
        undefined,
        traceparentOf(request),
      );
      request.log.info({ taskIds: answer.task_ids, action: request.body.action }, 'tasks created');
      return answer;
    },
  );
}
