import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { GENERATE_ERRORS } from '../../base/contract/generate-errors.js';
import { storePageOf } from '../../base/contract/paging.js';
import {
  clearedCardsSchema,
  generateBodySchema,
  generateResponseSchema,
  libraryPageSchema,
  libraryQuerySchema,
  MAX_PENDING_CARDS,
  MAX_REMOVED_WORKS,
  pendingTasksQuerySchema,
  pendingTasksSchema,
  RECENT_CARDS_MS,
  savedWorksPageSchema,
  WEB_PREVIEW_FRAMES,
  WEBSITE_TAG,
  websiteSession,
  workParamsSchema,
  worksQuerySchema,
} from '../../base/contract/website.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse, noContent } from '../http/route-responses.js';
import { createCreationViews } from './creation-views.js';
import type { WebsiteServices } from './website-services.js';

/** The errors of a signed-in listing: a malformed query, no session. */
const listingErrors = errorResponses(['invalid_request', 'unauthorized']);

/** The creation view (web-sourced generate, pending tasks), saved works and the library: signed-in routes. */
export async function creationRoutes(app: FastifyInstance, { services }: { services: WebsiteServices }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { generations, creations, library, tasks } = services;
  const views = createCreationViews({ db: services.db, clock: services.clock });

  api.post(
    '/generate',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Generate from the website',
        description:
          'POST /api/v1/generate for the signed-in account, its generation labelled `web`: the same validation, answer and errors.',
        security: websiteSession,
        body: generateBodySchema,
        response: {
          200: jsonResponse('Tasks created', generateResponseSchema),
          // POST /api/v1/generate's, less its Idempotency-Key answers, plus the cross-site refusal;
          // 413, 415 and 422 also come from fetching a reference image (imageUrls).
          ...errorResponses([...GENERATE_ERRORS, 'unauthorized', 'forbidden']),
        },
      },
    },
    async (request) => {
      // Its tasks keep partial frames where the upstream makes them: the cards' live previews.
      const answer = await generations.generate(accountOf(request), request.body, 'web', undefined, {
        partialImages: WEB_PREVIEW_FRAMES,
      });
      request.log.info({ taskIds: answer.task_ids }, 'tasks created');
      return answer;
    },
  );

  api.get(
    '/tasks/pending',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Pending tasks',
        description:
          "The account's unfinished tasks (API-submitted ones included, labelled by source), plus every task created since `since` (absent: in the last 24 hours), newest first, at most 200 (`has_more` says whether more were left out). Tasks of deleted works, and tasks already final when the account last cleared its finished cards, are left out. With `since`, `removed` names the works deleted since then (in another tab, on another device), so their cards leave an open view.",
        security: websiteSession,
        querystring: pendingTasksQuerySchema,
        response: { 200: jsonResponse('Pending tasks', pendingTasksSchema), ...listingErrors },
      },
    },
    async (request) => {
      const now = services.clock.now();
      const accountId = accountOf(request).id;
      const { since } = request.query;
      const clearedAt = await views.clearedAt(accountId);
      const [pending, removed] = await Promise.all([
        tasks.listPendingForAccount(accountId, {
          since: since ?? now - RECENT_CARDS_MS,
          limit: MAX_PENDING_CARDS + 1,
          clearedAt,
        }),
        // A first listing (no since) already leaves deleted works out; a later one names them.
        since === undefined ? undefined : generations.removedSince(accountId, since, MAX_REMOVED_WORKS + 1),
      ]);
      const has_more = pending.length > MAX_PENDING_CARDS;
      const listing = { now, clearedAt, tasks: pending.slice(0, MAX_PENDING_CARDS), has_more };
      if (!removed) return listing;
      const removed_more = removed.length > MAX_REMOVED_WORKS;
      return { ...listing, removed: removed.slice(0, MAX_REMOVED_WORKS), removed_more };
    },
  );

  api.post(
    '/tasks/cleared',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Clear finished cards',
        description:
          'Takes every task final by now off the creation view, for this account on every device (they stay in saved works and the library).',
        security: websiteSession,
        response: {
          200: jsonResponse('Cleared', clearedCardsSchema),
          ...errorResponses(['unauthorized', 'forbidden']),
        },
      },
    },
    async (request) => ({ clearedAt: await views.clear(accountOf(request).id) }),
  );

  api.get(
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

  api.delete(
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

  api.get(
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
