import assert from 'node:assert/strict';
import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  createSecretBox,
  decodeMasterKey,
  deriveKey,
  loadOrCreateMasterKey,
  sealContext,
} from './secret-box.js';

test('seal/open round-trips, with a fresh IV each time, and detects tampering', () => {
  const box = createSecretBox(randomBytes(32));
  const context = sealContext('upstream_keys', 'acc_1', 'gemini');
  const a = box.seal('sk-secret', context);
  const b = box.seal('sk-secret', context);
  assert.notEqual(a, b);
  assert.ok(!a.includes('sk-secret'));
  assert.equal(box.open(a, context), 'sk-secret');
  const parts = a.split('.');
  parts[3] = Buffer.from('tampered').toString('base64url');
  assert.throws(() => box.open(parts.join('.'), context));
  assert.throws(() => createSecretBox(randomBytes(32)).open(a, context));
});

test('a seal opens only for the row it was made for (account and provider are its associated data)', () => {
  const box = createSecretBox(randomBytes(32));
  const sealed = box.seal('sk-secret', sealContext('upstream_keys', 'acc_1', 'gemini'));
  for (const other of [
    sealContext('upstream_keys', 'acc_2', 'gemini'),
    sealContext('upstream_keys', 'acc_1', 'openai'),
    // No separator can be forged inside a part.
    sealContext('upstream_keys', 'acc_1","gemini'),
    sealContext('webhook_secrets', 'acc_1'),
  ])
    assert.throws(() => box.open(sealed, other));
});

test('a legacy seal (v1, no associated data) is bound to a row by bindLegacy, and only then opens', () => {
  const key = randomBytes(32);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update('sk-old', 'utf8'), cipher.final()]);
  const legacy = ['v1', iv, cipher.getAuthTag(), body]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
  const box = createSecretBox(key);
  const context = sealContext('upstream_keys', 'acc_1', 'gemini');
  assert.throws(() => box.open(legacy, context), /unknown sealed secret format/);
  const bound = box.bindLegacy(legacy, context);
  if (bound === undefined) assert.fail('a legacy seal is bound');
  assert.ok(bound.startsWith('v2.'));
  assert.equal(box.open(bound, context), 'sk-old');
  assert.equal(box.bindLegacy(bound, context), undefined, 'a bound seal is left as it is');
});

test('keys derived from the master key are stable per label and unrelated across labels', () => {
  const master = randomBytes(32);
  assert.deepEqual(deriveKey(master, 'upload-names'), deriveKey(Buffer.from(master), 'upload-names'));
  assert.notDeepEqual(deriveKey(master, 'upload-names'), deriveKey(master, 'other'));
  assert.notDeepEqual(deriveKey(master, 'upload-names'), master);
  assert.equal(deriveKey(master, 'upload-names').length, 32);
});

test('the master key is created once in the data dir with mode 0600, or taken from the environment', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mk-'));
  const first = loadOrCreateMasterKey(dir, undefined);
  const second = loadOrCreateMasterKey(dir, undefined);
  assert.deepEqual(first, second);
  assert.equal(statSync(join(dir, 'master.key')).mode & 0o777, 0o600);
  assert.equal(readFileSync(join(dir, 'master.key'), 'utf8').trim().length, 44);
  const hex = randomBytes(32).toString('hex');
  assert.deepEqual(loadOrCreateMasterKey(dir, hex), Buffer.from(hex, 'hex'));
  assert.throws(() => decodeMasterKey('short'), /ATELIER_MASTER_KEY/);
});
