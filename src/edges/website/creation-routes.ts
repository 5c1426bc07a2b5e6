import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { generateBodySchema } from '../../base/contract/generate-body.js';
import { GENERATE_ERRORS } from '../../base/contract/generate-errors.js';
import { generateResponseSchema } from '../../base/contract/generations.js';
import {
  clearedCardsSchema,
  MAX_PENDING_CARDS,
  MAX_REMOVED_WORKS,
  pendingTasksQuerySchema,
  pendingTasksSchema,
  RECENT_CARDS_MS,
  WEB_PREVIEW_FRAMES,
} from '../../base/contract/website/create.js';
import { WEBSITE_TAG, websiteSession } from '../../base/contract/website/shared.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import { traceparentOf } from '../http/traceparent.js';
import { type CreationViews, createCreationViews } from './creation-views.js';
import { libraryPageRoute, listingErrors } from './library-routes.js';
import type { WebsiteServices } from './website-services.js';
import { deleteWorkRoute, savedWorksRoute } from './works-routes.js';

/** The creation view (web-sourced generate, pending tasks), saved works and the library: signed-in routes. */
export async function creationRoutes(app: FastifyInstance, { services }: { services: WebsiteServices }) {
  const views = createCreationViews({ db: services.db, clock: services.clock });
  generateRoute(app, services);
  pendingTasksRoute(app, services, views);
  clearCardsRoute(app, views);
  savedWorksRoute(app, services);
  deleteWorkRoute(app, services);
  libraryPageRoute(app, services);
}

/** POST /generate: POST /api/v1/generate for the signed-in account, labelled `web`. */
function generateRoute(app: FastifyInstance, services: WebsiteServices) {
  const { generations } = services;
  app.withTypeProvider<ZodTypeProvider>().post(
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
        traceparent: traceparentOf(request),
      });
      request.log.info({ taskIds: answer.task_ids }, 'tasks created');
      return answer;
    },
  );
}

/** GET /tasks/pending: the creation view's cards. */
function pendingTasksRoute(app: FastifyInstance, services: WebsiteServices, views: CreationViews) {
  const { generations, tasks } = services;
  app.withTypeProvider<ZodTypeProvider>().get(
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
}

/** POST /tasks/cleared: finished cards leave the creation view, on every device. */
function clearCardsRoute(app: FastifyInstance, views: CreationViews) {
  app.withTypeProvider<ZodTypeProvider>().post(
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
}
