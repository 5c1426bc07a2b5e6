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

/**
 * POST /api/v1/generations/{id}/actions: an upscale of a finished work (200), of an unknown one
 * (404), an action no one offers (400). After this, one more task exists (the upscale).
 */
export async function exerciseActionRoute(
  exercise: ReturnType<typeof contractChecker>['exercise'],
  app: {
    inject: (options: {
      method: 'GET';
      url: string;
      headers: Record<string, string>;
    }) => Promise<{ json(): unknown }>;
  },
  h: { authorization: string },
) {
  const history = (
    await app.inject({ method: 'GET', url: '/api/v1/history?limit=20', headers: h })
  ).json() as {
    items: Array<{ id: string; images: string[] }>;
  };
  const finished = history.items.find((item) => item.images.length > 0);
  assert.ok(finished, 'a finished work to act on');
  const path = '/api/v1/generations/{id}/actions';
  const json = { ...h, 'content-type': 'application/json' };
  const url = `/api/v1/generations/${finished.id}/actions`;
  await exercise('POST', path, { url, headers: json, payload: { action: 'upscale' } }, 200);
  await exercise('POST', path, { url, headers: json, payload: { action: 'nudge' } }, 400);
  const unknown = '/api/v1/generations/gen_unknown/actions';
  await exercise('POST', path, { url: unknown, headers: json, payload: { action: 'upscale' } }, 404);
}
