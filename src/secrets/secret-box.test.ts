import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createSecretBox, decodeMasterKey, loadOrCreateMasterKey } from './secret-box.js';

test('seal/open round-trips, with a fresh IV each time, and detects tampering', () => {
  const box = createSecretBox(randomBytes(32));
  const a = box.seal('sk-secret');
  const b = box.seal('sk-secret');
  assert.notEqual(a, b);
  assert.ok(!a.includes('sk-secret'));
  assert.equal(box.open(a), 'sk-secret');
  const parts = a.split('.');
  parts[3] = Buffer.from('tampered').toString('base64url');
  assert.throws(() => box.open(parts.join('.')));
  assert.throws(() => createSecretBox(randomBytes(32)).open(a));
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
