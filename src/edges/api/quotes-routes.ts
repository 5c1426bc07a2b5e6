import { generateBodySchema } from '../../base/contract/generations.js';
import { QUOTE_TTL_SECONDS, quoteSchema } from '../../base/contract/quotes.js';
import type { GenerationsService } from '../../use-cases/generations/index.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse, WRITE_AUTH_ERRORS } from '../http/route-responses.js';
import type { ZodApp } from '../http/zod-app.js';

/** POST /quotes: what a generate body is expected to cost, the most it can, and a quote id that binds. */
export function registerQuoteRoute(app: ZodApp, generations: Pick<GenerationsService, 'quote'>) {
  const quoteRouteSchema = {
    tags: ['Generation'],
    operationId: 'quote',
    summary: 'Quote a generate body: expected cost, the most it can cost, and a quote id that binds',
    description: `Takes a generate body (checked as POST /generate checks it, references not fetched) and answers what it is expected to cost, the most it can be charged, and a quote_id valid for ${QUOTE_TTL_SECONDS / 60} minutes on this account. POST /generate with the same body and quote_id is never charged more than max_cost_micros, whatever the catalog's prices are by then: an upstream bill above it is absorbed by the operator (tasks.cost_absorbed_micros, metric atelier_quote_absorbed_micros_total). A different body, an expired quote or another account's is refused (400, quote_id).`,
    body: generateBodySchema,
    response: {
      200: jsonResponse('The quote', quoteSchema),
      ...errorResponses(['invalid_request', ...WRITE_AUTH_ERRORS]),
    },
  };
  app.post('/quotes', { schema: quoteRouteSchema }, async (request) =>
    generations.quote(accountOf(request), request.body),
  );
}
