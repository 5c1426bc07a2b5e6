import assert from 'node:assert/strict';
import type { contractChecker } from './openapi-contract.js';

/**
 * Stars, collections and the ZIP download (issue 30), a success and errors each, on /api/v1 (a key)
 * or /web/api (a session and its origin): `workId` is a saved work of the caller's account.
 */
export async function exerciseCurationRoutes(
  exercise: ReturnType<typeof contractChecker>['exercise'],
  options: { prefix: '/api/v1' | '/web/api'; headers: Record<string, string>; workId: string },
) {
  const { prefix, workId } = options;
  const headers = { ...options.headers, 'content-type': 'application/json' };
  const star = `${prefix}/${prefix === '/api/v1' ? 'generations' : 'works'}/{id}/star`;
  const starUrl = star.replace('{id}', workId);
  await exercise('PUT', star, { url: starUrl, headers }, 204);
  await exercise('PUT', star, { url: star.replace('{id}', 'gen_none'), headers }, 404);
  await exercise('DELETE', star, { url: starUrl, headers }, 204);
  await exercise('DELETE', star, { url: star.replace('{id}', 'gen_none'), headers }, 404);

  const collections = `${prefix}/collections`;
  const created = await exercise(
    'POST',
    collections,
    { url: collections, headers, payload: { name: 'Contract' } },
    201,
  );
  await exercise('POST', collections, { url: collections, headers, payload: { name: 'contract' } }, 409);
  await exercise('POST', collections, { url: collections, headers, payload: { name: '' } }, 400);
  const id = (created.json() as { id: string }).id;
  assert.match(id, /^col_/);
  const one = `${prefix}/collections/{id}`;
  const item = `${prefix}/collections/{id}/items/{generation_id}`;
  const itemUrl = `${collections}/${id}/items/${workId}`;
  await exercise('PUT', item, { url: itemUrl, headers }, 204);
  await exercise('PUT', item, { url: `${collections}/col_none/items/${workId}`, headers }, 404);
  await exercise('GET', collections, { url: collections, headers }, 200);
  await exercise('GET', collections, { url: collections }, 401);
  await exercise('PATCH', one, { url: `${collections}/${id}`, headers, payload: { name: 'Renamed' } }, 200);
  await exercise('PATCH', one, { url: `${collections}/${id}`, headers, payload: { name: 7 } }, 400);
  await exercise('PATCH', one, { url: `${collections}/col_none`, headers, payload: { name: 'x' } }, 404);
  await exercise('DELETE', item, { url: itemUrl, headers }, 204);
  await exercise('DELETE', item, { url: `${collections}/${id}/items/gen_none`, headers }, 404);
  await exercise('DELETE', one, { url: `${collections}/${id}`, headers }, 204);
  await exercise('DELETE', one, { url: `${collections}/${id}`, headers }, 404);

  const zip = `${prefix}/downloads/zip`;
  const answer = await exercise('GET', zip, { url: `${zip}?works=${workId}`, headers }, 200);
  assert.equal(answer.headers['content-type'], 'application/zip');
  await exercise('GET', zip, { url: zip, headers }, 400);
  await exercise('GET', zip, { url: `${zip}?works=gen_none`, headers }, 404);
  // The same download with the ids in a JSON body (no request line to outgrow).
  const posted = await exercise('POST', zip, { url: zip, headers, payload: { works: [workId] } }, 200);
  assert.equal(posted.headers['content-type'], 'application/zip');
  await exercise('POST', zip, { url: zip, headers, payload: {} }, 400);
  await exercise('POST', zip, { url: zip, headers, payload: { assets: ['ast_none'] } }, 404);
}
