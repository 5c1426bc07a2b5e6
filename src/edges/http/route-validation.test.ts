import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { z } from 'zod';
import { integerQuery } from '../../base/contract/paging.js';
import { routeValidatorCompiler } from './route-validation.js';

/** An app whose routes echo what validation gave the handler, and let the handler change it. */
async function echoApp() {
  const app = Fastify();
  app.setValidatorCompiler(routeValidatorCompiler);
  const seen: Array<Record<string, unknown>> = [];
  const flat = z.object({
    wait: integerQuery({ fallback: 0, min: 0, max: 30 }),
    mode: z.string().default('a'),
  });
  app.get('/flat', { schema: { querystring: flat } }, (request) => {
    const query = request.query as Record<string, unknown>;
    seen.push(query);
    const answer = { ...query };
    query.wait = 99; // a handler changing its own copy must not change the next request's
    return answer;
  });
  const listed = z.object({ tags: z.array(z.string()).default([]) });
  app.get('/listed', { schema: { querystring: listed } }, (request) => {
    const query = request.query as { tags: string[] };
    seen.push(query);
    query.tags.push('mine');
    return query;
  });
  await app.ready();
  return { app, seen };
}

test('requests without a query string get their schema’s answer, each its own copy', async () => {
  const { app, seen } = await echoApp();
  for (let i = 0; i < 3; i++) {
    const response = await app.inject('/flat');
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { wait: 0, mode: 'a' });
  }
  assert.notEqual(seen[0], seen[1]);
  assert.notEqual(seen[1], seen[2]);
  await app.close();
});

test('a query string is parsed as given, a bad one refused, and the empty answer still follows', async () => {
  const { app } = await echoApp();
  assert.deepEqual((await app.inject('/flat')).json(), { wait: 0, mode: 'a' });
  assert.deepEqual((await app.inject('/flat?wait=5&mode=b')).json(), { wait: 5, mode: 'b' });
  const refused = await app.inject('/flat?wait=x');
  assert.equal(refused.statusCode, 400);
  assert.match(refused.body, /must be an integer/);
  assert.deepEqual((await app.inject('/flat')).json(), { wait: 0, mode: 'a' });
  await app.close();
});

test('an answer holding an array is parsed afresh for every request', async () => {
  const { app } = await echoApp();
  assert.deepEqual((await app.inject('/listed')).json(), { tags: ['mine'] });
  assert.deepEqual((await app.inject('/listed')).json(), { tags: ['mine'] });
  await app.close();
});
