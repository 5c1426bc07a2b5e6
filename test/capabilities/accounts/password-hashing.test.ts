import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RateLimited } from '../../../src/base/domain/errors.js';
import {
  createPasswordHashing,
  type DeriveKey,
  PASSWORD_HASH_PARAMS,
  type ScryptParams,
  scryptDerive,
} from '../../../src/capabilities/accounts/password-hashing.js';
import { legacyPasswordHash } from '../../support/password-hashes.js';

/** Real scrypt, with every call's salt, key length and parameters recorded. */
function recordingDerive(inner: DeriveKey = scryptDerive) {
  const calls: Array<{ salt: Buffer; keyLength: number; params: ScryptParams }> = [];
  const derive: DeriveKey = (password, salt, keyLength, params) => {
    calls.push({ salt, keyLength, params });
    return inner(password, salt, keyLength, params);
  };
  return { calls, derive };
}

describe('password hashing', () => {
  test('hashes use scrypt N=2^17, r=8, p=1 with a fresh salt, and verify', async () => {
    assert.deepEqual(PASSWORD_HASH_PARAMS, { N: 131072, r: 8, p: 1 });
    const passwords = createPasswordHashing();
    const hash = await passwords.hash('correct horse');
    assert.match(hash, /^scrypt\$131072\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    assert.notEqual(await passwords.hash('correct horse'), hash);
    assert.deepEqual(await passwords.verify('correct horse', hash), { ok: true, outdated: false });
    assert.deepEqual(await passwords.verify('wrong horse', hash), { ok: false, outdated: false });
  });

  test('a hash made with N=16384 still verifies, and is reported outdated', async () => {
    const passwords = createPasswordHashing();
    const old = await legacyPasswordHash('correct horse', { N: 16384, r: 8, p: 1 });
    assert.deepEqual(await passwords.verify('correct horse', old), { ok: true, outdated: true });
    assert.deepEqual(await passwords.verify('wrong horse', old), { ok: false, outdated: false });
  });

  test('no hash never matches, even a password whose scrypt output is all zeros, and costs one full-size hash', async () => {
    // The old fallback for an account without a password was a 3-byte, zero-salt hash in the
    // source: any password whose output began with three zero bytes signed in to every such
    // account. A derivation answering zeros stands for that password (and for every other one).
    const { calls, derive } = recordingDerive(async (_password, _salt, keyLength) => Buffer.alloc(keyLength));
    const passwords = createPasswordHashing({ derive });
    const oldFallback = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAA';
    for (const stored of [
      null,
      undefined,
      '',
      oldFallback,
      'garbage',
      'scrypt$3$8$1$AAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA',
    ]) {
      assert.deepEqual(
        await passwords.verify('anything at all', stored),
        { ok: false, outdated: false },
        String(stored),
      );
    }
    assert.equal(calls.length, 6, 'one hash per check');
    for (const call of calls) {
      assert.equal(call.keyLength, 32);
      assert.deepEqual(call.params, PASSWORD_HASH_PARAMS);
      assert.equal(call.salt.length, 16);
      assert.notDeepEqual(call.salt, Buffer.alloc(16), 'not a salt anyone can know');
    }
    // The decoy salt is drawn per process (per hashing pool), not written in the source.
    const other = recordingDerive(async (_password, _salt, keyLength) => Buffer.alloc(keyLength));
    await createPasswordHashing({ derive: other.derive }).verify('x', null);
    assert.notDeepEqual(other.calls[0]?.salt, calls[0]?.salt);
  });

  test('a stored hash asking for more memory than the bound is not computed as asked', async () => {
    const { calls, derive } = recordingDerive(async (_password, _salt, keyLength) => Buffer.alloc(keyLength));
    const passwords = createPasswordHashing({ derive });
    const huge = `scrypt$${2 ** 24}$8$1$${Buffer.alloc(16, 1).toString('base64url')}$${Buffer.alloc(32).toString('base64url')}`;
    assert.equal((await passwords.verify('x', huge)).ok, false);
    assert.deepEqual(calls[0]?.params, PASSWORD_HASH_PARAMS);
  });

  test('at most `concurrency` hashes run at once; past the queue, callers are refused with RateLimited at once', async () => {
    let running = 0;
    let peak = 0;
    const gates: Array<() => void> = [];
    const derive: DeriveKey = async (_p, _s, keyLength) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise<void>((resolve) => gates.push(resolve));
      running--;
      return Buffer.alloc(keyLength);
    };
    const passwords = createPasswordHashing({ options: { concurrency: 2, queue: 3 }, derive });
    const admitted = Array.from({ length: 5 }, () => passwords.verify('x', null));
    const refused = await Promise.allSettled(Array.from({ length: 4 }, () => passwords.verify('x', null)));
    for (const outcome of refused) {
      assert.equal(outcome.status, 'rejected');
      assert.ok(outcome.status === 'rejected' && outcome.reason instanceof RateLimited);
      assert.equal((outcome as PromiseRejectedResult).reason.retryAfterMs, 1000);
    }
    assert.deepEqual(passwords.load(), { running: 2, waiting: 3 });
    while (gates.length > 0 || passwords.load().running > 0) {
      gates.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal((await Promise.all(admitted)).length, 5);
    assert.equal(peak, 2);
  });
});
