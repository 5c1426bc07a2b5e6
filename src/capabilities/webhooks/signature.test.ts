import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, signWebhook } from './signature.js';

test('secrets are whsec_ + base64 of 32 random bytes, different every time', () => {
  const secret = generateWebhookSecret();
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.equal(Buffer.from(secret.slice('whsec_'.length), 'base64').length, 32);
  assert.notEqual(generateWebhookSecret(), secret);
});

test('signatures match the Standard Webhooks reference library, and it verifies them', () => {
  const secret = generateWebhookSecret();
  const body = JSON.stringify({
    type: 'task.completed',
    timestamp: new Date().toISOString(),
    data: { a: 'é' },
  });
  const seconds = Math.floor(Date.now() / 1000);
  const signature = signWebhook(secret, 'msg_1', seconds, body);
  const reference = new Webhook(secret);
  assert.equal(signature, reference.sign('msg_1', new Date(seconds * 1000), body));
  const headers = {
    'webhook-id': 'msg_1',
    'webhook-timestamp': String(seconds),
    'webhook-signature': signature,
  };
  assert.deepEqual(reference.verify(body, headers), JSON.parse(body));
  // Any change to id, timestamp or body breaks it.
  assert.throws(() => reference.verify(`${body} `, headers));
  assert.throws(() => reference.verify(body, { ...headers, 'webhook-id': 'msg_2' }));
  assert.throws(() => new Webhook(generateWebhookSecret()).verify(body, headers));
});
