import { type HistoryPage, historyPageSchema, historyQuerySchema } from '../../base/contract/generations.js';
import { storePageOf } from '../../base/contract/paging.js';
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
  creations: Pick<CreationReads, 'historyPage'>,
  historyTexts: HistoryTexts,
) {
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
