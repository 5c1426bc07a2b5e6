import { z } from 'zod';
import {
  type HistoryPage,
  historyPageSchema,
  historyQuerySchema,
  versionsSchema,
} from '../../base/contract/generations.js';
import { storePageOf } from '../../base/contract/paging.js';
import { NotFound } from '../../base/domain/errors.js';
import type { CreationReads } from '../../use-cases/read-models/index.js';
import { accountOf } from '../http/authentication.js';
import { compileJsonSerializer, sendJsonText } from '../http/response-serializer.js';
import { AUTH_ERRORS, errorResponses, jsonResponse } from '../http/route-responses.js';
import type { ZodApp } from '../http/zod-app.js';

/**
 * A kept history page (the same object while nothing it shows changes) is serialised once: its
 * text is kept beside it, for the page number it was asked as. One per app, shared by its /api/v1
 * and /v1 routes.
 */
export type HistoryTexts = WeakMap<HistoryPage, { page: number; text: string }>;
export const createHistoryTexts = (): HistoryTexts => new WeakMap();

/** GET /history: the account's generations, newest first, each page's text kept beside it. */
export function registerHistoryRoute(
  app: ZodApp,
  creations: Pick<CreationReads, 'historyPage' | 'versions'>,
  historyTexts: HistoryTexts,
) {
  registerVersionsRoute(app, creations);
  const historySchema = {
    tags: ['History'],
    operationId: 'history',
    summary: 'List generations, newest first',
    description:
      'Each item also says whether it is starred and which collections hold it; `starred=true` and `collection` narrow the list (an unknown collection is a 404).',
    querystring: historyQuerySchema,
    response: {
      200: jsonResponse('A page of generations', historyPageSchema),
      ...errorResponses(['invalid_request', ...AUTH_ERRORS, 'not_found']),
    },
  };
  app.get('/history', { schema: historySchema }, async (request, reply) => {
    const { page, limit, ...filters } = request.query;
    const found = await creations.historyPage(accountOf(request).id, storePageOf(page), limit, filters);
    let kept = historyTexts.get(found);
    if (kept === undefined || kept.page !== page) {
      kept = { page, text: compileJsonSerializer(historyPageSchema)({ ...found, page }) };
      historyTexts.set(found, kept);
    }
    return sendJsonText(reply, kept.text);
  });
}

/** GET /history/{id}/versions: a work's lineage as history items (extra route, not the spec's). */
function registerVersionsRoute(app: ZodApp, creations: Pick<CreationReads, 'versions'>) {
  const schema = {
    tags: ['History'],
    operationId: 'workVersions',
    summary: "A work's versions: what it refines and what refines it",
    description:
      'Extra route (not in the spec). A generation made with `parentId` refines another; this lists the whole chain the work belongs to — its ancestors up to the first work and every refinement of them — oldest first, each as a history item with `parentId`, `parentTaskId` and `instruction` where it has a parent. Deleted versions stay listed (marked `removed`): deleting a version never deletes its parent. The id is a generation id, or the task id of one of its images (what POST /generate answers). 404 when the id is neither of this account.',
    params: z.object({
      id: z
        .string()
        .min(1)
        .max(200)
        .describe("A generation id (gen_…) or one of its images' task id (tsk_…)"),
    }),
    response: {
      200: jsonResponse("The work's versions", versionsSchema),
      ...errorResponses(['invalid_request', ...AUTH_ERRORS, 'not_found']),
    },
  };
  app.get('/history/:id/versions', { schema }, async (request) => {
    const versions = await creations.versions(accountOf(request).id, request.params.id);
    if (!versions) throw new NotFound('Generation not found');
    return { versions };
  });
}
