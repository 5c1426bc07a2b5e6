import assert from 'node:assert/strict';
import { bearer } from './api-helpers.js';
import type { contractChecker } from './openapi-contract.js';

/** GET /api/v1/models/{id} and POST /api/v1/quotes (issue 41): successes and errors. */
export async function exerciseCatalogAndQuoteRoutes(
  exercise: ReturnType<typeof contractChecker>['exercise'],
  h: { authorization: string },
) {
  const quotes = '/api/v1/quotes';
  const quote = (
    await exercise('POST', quotes, { url: quotes, headers: h, payload: { prompt: 'a fox' } }, 200)
  ).json();
  assert.match(quote.quote_id, /^qt_/);
  await exercise('POST', quotes, { url: quotes, headers: h, payload: { prompt: '' } }, 400);
  await exercise('POST', quotes, { url: quotes, headers: bearer('atl_x'), payload: {} }, 401);
  const oneModel = '/api/v1/models/{id}';
  await exercise('GET', oneModel, { url: '/api/v1/models/pro', headers: h }, 200);
  await exercise('GET', oneModel, { url: '/api/v1/models/gpt-image-1', headers: h }, 200);
  await exercise('GET', oneModel, { url: '/api/v1/models/no-such-model', headers: h }, 404);
  await exercise('GET', oneModel, { url: '/api/v1/models/pro', headers: bearer('atl_x') }, 401);
}
