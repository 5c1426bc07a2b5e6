import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateApiKey, hashApiKey, hashPassword, verifyPassword } from './credentials.js';

test('API keys are prefixed, high-entropy and hashed deterministically', () => {
  const key = generateApiKey();
  assert.match(key, /^atl_[A-Za-z0-9_-]{43}$/);
  assert.notEqual(generateApiKey(), key);
  assert.equal(hashApiKey(key), hashApiKey(key));
  assert.equal(hashApiKey(key).length, 64);
  assert.ok(!hashApiKey(key).includes(key));
});

test('passwords are scrypt-hashed with a salt and verified', async () => {
  const hash = await hashPassword('correct horse');
  assert.match(hash, /^scrypt\$/);
  assert.notEqual(await hashPassword('correct horse'), hash);
  assert.equal(await verifyPassword('correct horse', hash), true);
  assert.equal(await verifyPassword('wrong horse', hash), false);
  assert.equal(await verifyPassword('x', 'garbage'), false);
});
