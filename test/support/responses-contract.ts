import { bearer } from './api-helpers.js';
import type { contractChecker } from './openapi-contract.js';

/** The Responses API's image tool: create (waited, streamed, background), retrieve, delete. */
export async function exerciseResponses(
  exercise: ReturnType<typeof contractChecker>['exercise'],
  h: { authorization: string },
) {
  const json = { ...h, 'content-type': 'application/json' };
  const create = '/v1/responses';
  const ask = { model: 'gpt-5', input: 'contract', tools: [{ type: 'image_generation' }] };
  const made = await exercise('POST', create, { url: create, headers: json, payload: ask }, 200);
  await exercise('POST', create, { url: create, headers: json, payload: { ...ask, tools: [] } }, 400);
  const unknown = { ...ask, tools: [{ type: 'image_generation', model: 'no' }] };
  await exercise('POST', create, { url: create, headers: json, payload: unknown }, 404);
  const streamed = { ...ask, stream: true, tools: [{ type: 'image_generation', partial_images: 1 }] };
  await exercise('POST', create, { url: create, headers: json, payload: streamed }, 200);
  await exercise(
    'POST',
    create,
    { url: create, headers: json, payload: { ...ask, input: '[[fail]]', stream: true } },
    200,
  );
  await exercise('POST', create, { url: create, headers: json, payload: { ...ask, background: true } }, 200);
  const one = '/v1/responses/{id}';
  const url = `/v1/responses/${String(made.json().id)}`;
  await exercise('GET', one, { url, headers: h }, 200);
  await exercise('GET', one, { url, headers: bearer('atl_x') }, 401);
  await exercise('DELETE', one, { url, headers: h }, 200);
  await exercise('GET', one, { url, headers: h }, 404);
  await exercise('DELETE', one, { url, headers: h }, 404);
  await exercise('DELETE', one, { url, headers: bearer('atl_x') }, 401);
}
