import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { InvalidInput, NotFound } from '../../base/domain/errors.js';
import { type ErrorBodies, installErrorBodies, installErrorHandling } from './error-handler.js';

class TeapotError extends Error {}

/** An edge's own shape, as the OpenAI-compatible routes register theirs: the kit knows none of it. */
const edgeBodies: ErrorBodies = {
  body: (status, type, message, field) => ({ fault: { status, type, message, field: field ?? null } }),
  ownError(thrown, _request, reply) {
    if (!(thrown instanceof TeapotError)) return false;
    reply
      .code(418)
      .header('x-edge', 'own')
      .send({ fault: { status: 418, type: 'teapot' } });
    return true;
  },
};

async function appWithEdge(): Promise<FastifyInstance> {
  const app = Fastify();
  installErrorHandling(app);
  app.get('/plain', async () => {
    throw new NotFound('Task not found');
  });
  await app.register(
    async (edge) => {
      installErrorBodies(edge, edgeBodies);
      edge.get('/invalid', async () => {
        throw new InvalidInput('prompt must not be empty', 'prompt');
      });
      edge.get('/own', async () => {
        throw new TeapotError('short and stout');
      });
    },
    { prefix: '/edge' },
  );
  return app;
}

test('routes of an edge that registered its error bodies answer in its shape, with the same status', async () => {
  const app = await appWithEdge();
  const invalid = await app.inject({ url: '/edge/invalid' });
  assert.equal(invalid.statusCode, 400);
  assert.deepEqual(invalid.json(), {
    fault: { status: 400, type: 'invalid_request', message: 'prompt must not be empty', field: 'prompt' },
  });
  const own = await app.inject({ url: '/edge/own' });
  assert.equal(own.statusCode, 418);
  assert.equal(own.headers['x-edge'], 'own');
  assert.deepEqual(own.json(), { fault: { status: 418, type: 'teapot' } });
  await app.close();
});

test('every other route keeps the default shape', async () => {
  const app = await appWithEdge();
  const plain = await app.inject({ url: '/plain' });
  assert.equal(plain.statusCode, 404);
  assert.deepEqual(plain.json(), { error: { type: 'not_found', message: 'Task not found' } });
  await app.close();
});
