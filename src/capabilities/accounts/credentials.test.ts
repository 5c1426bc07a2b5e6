import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiKeyHint, generateApiKey, hashApiKey } from './credentials.js';

test('API keys are prefixed, high-entropy and hashed deterministically', () => {
  const key = generateApiKey();
  assert.match(key, /^atl_[A-Za-z0-9_-]{43}$/);
  assert.notEqual(generateApiKey(), key);
  assert.equal(hashApiKey(key), hashApiKey(key));
  assert.equal(hashApiKey(key).length, 64);
  assert.ok(!hashApiKey(key).includes(key));
});

test('a key is hinted by its first characters', () => {
  const key = generateApiKey();
  assert.equal(apiKeyHint(key), `${key.slice(0, 8)}…`);
  assert.match(apiKeyHint(key), /^atl_[A-Za-z0-9_-]{4}…$/);
});
