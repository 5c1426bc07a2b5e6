import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import type { Account } from '../../capabilities/accounts/index.js';
import { readScopeAllows, scopeRefusal } from './key-scopes.js';

const request = (method: string, url: string) =>
  ({ method, routeOptions: { url } }) as unknown as FastifyRequest;
const account = (scope?: 'full' | 'read'): Account => ({
  id: 'acc_1',
  email: 'a@example.test',
  tier: 'standard',
  createdAt: 0,
  ...(scope ? { apiKey: { id: 'key_1', name: 'k', scope, expiresAt: null } } : {}),
});

test('a read key may GET what only reads, never a secret, never another method', () => {
  assert.equal(readScopeAllows(request('GET', '/api/v1/tasks/:task_id')), true);
  assert.equal(readScopeAllows(request('HEAD', '/api/v1/history')), true);
  assert.equal(readScopeAllows(request('GET', '/v1/images/generations/:id')), true);
  assert.equal(readScopeAllows(request('GET', '/api/v1/user/webhook-secret')), false);
  assert.equal(readScopeAllows(request('GET', '/v1/user/webhook-secret')), false);
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
    assert.equal(readScopeAllows(request(method, '/api/v1/anything')), false, method);
  }
});

test('only a read key is ever refused: a full key and a website session go on', () => {
  const generate = request('POST', '/api/v1/generate');
  assert.equal(scopeRefusal(generate, account('full')), undefined);
  assert.equal(scopeRefusal(generate, account()), undefined);
  const refusal = scopeRefusal(generate, account('read'));
  assert.equal(refusal?.type, 'insufficient_scope');
  assert.equal(refusal?.status, 403);
  assert.equal(scopeRefusal(request('GET', '/api/v1/user/usage'), account('read')), undefined);
});
