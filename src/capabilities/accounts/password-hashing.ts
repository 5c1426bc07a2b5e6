import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { type BoundedWorkPool, createBoundedWorkPool } from '../../base/concurrency/bounded-work-pool.js';

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** OWASP's minimum for scrypt: N = 2^17, r = 8, p = 1 (128 MiB and some 100–300 ms per hash). */
export const PASSWORD_HASH_PARAMS: ScryptParams = { N: 2 ** 17, r: 8, p: 1 };
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
/** scrypt's working memory is 128·N·r bytes; a stored hash asking for more than this is refused. */
const MAX_MEMORY = 256 * 1024 * 1024;

/** The key derivation (scrypt on libuv's pool): a port, so a test can see or replace what is hashed. */
export type DeriveKey = (
  password: string,
  salt: Buffer,
  keyLength: number,
  params: ScryptParams,
) => Promise<Buffer>;

export const scryptDerive: DeriveKey = (password, salt, keyLength, params) =>
  new Promise((resolve, reject) => {
    // maxmem above scrypt's own need (128·N·r plus its small per-p buffers), or OpenSSL refuses.
    const maxmem = 2 * 128 * params.N * params.r;
    scrypt(password, salt, keyLength, { ...params, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });

interface StoredHash {
  params: ScryptParams;
  salt: Buffer;
  hash: Buffer;
}

/** `scrypt$N$r$p$salt$hash`, or undefined when it is not one this code can check within its memory bound. */
function parseStoredHash(stored: string): StoredHash | undefined {
  const [scheme, n, r, p, salt, hash, ...rest] = stored.split('$');
  if (scheme !== 'scrypt' || rest.length > 0 || !n || !r || !p || !salt || !hash) return undefined;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  const { N } = params;
  const whole = [N, params.r, params.p].every((v) => Number.isSafeInteger(v) && v >= 1);
  const powerOfTwo = N >= 2 && Number.isInteger(Math.log2(N));
  if (!whole || !powerOfTwo || params.p > 16 || 128 * N * params.r > MAX_MEMORY) return undefined;
  const parsed = { params, salt: Buffer.from(salt, 'base64url'), hash: Buffer.from(hash, 'base64url') };
  return parsed.salt.length >= 8 && parsed.hash.length >= 16 ? parsed : undefined;
}

/** A stored hash made with less work than today's parameters: re-hashed at the next sign-in. */
function isOutdated({ params, hash }: StoredHash): boolean {
  const current = PASSWORD_HASH_PARAMS;
  return params.N < current.N || params.r < current.r || params.p < current.p || hash.length < KEY_LENGTH;
}

export interface PasswordHashingOptions {
  /** Hashes computed at once on this node (each one holds a libuv thread and 128 MiB). */
  concurrency: number;
  /** Callers that may wait for a turn; past that, 429 too_many_requests at once. */
  queue: number;
}

export const DEFAULT_PASSWORD_HASHING: PasswordHashingOptions = { concurrency: 2, queue: 32 };

export interface PasswordCheck {
  ok: boolean;
  /** The stored hash is weaker than today's parameters (only ever true when `ok`). */
  outdated: boolean;
}

/**
 * Password hashing on its own bounded pool: at most `concurrency` scrypt runs per node, so a flood
 * of sign-ins cannot take libuv's threads (which also read files) from everything else, and at
 * most `queue` waiting, so it cannot pile up memory and latency either.
 */
export function createPasswordHashing({
  options = DEFAULT_PASSWORD_HASHING,
  derive = scryptDerive,
}: {
  options?: PasswordHashingOptions;
  derive?: DeriveKey;
} = {}) {
  const pool: BoundedWorkPool = createBoundedWorkPool({
    ...options,
    busyMessage: 'Too many passwords are being checked right now; try again in a moment',
    retryAfterMs: 1000,
  });
  // What a password is checked against when the account has none (or no usable hash): a full-size
  // hash under a salt no one can know, whose answer is then ignored. Same cost as a real check.
  const decoySalt = randomBytes(SALT_LENGTH);

  return {
    /** A new hash of `password` under today's parameters, in a self-describing string. */
    hash(password: string): Promise<string> {
      return pool.run(async () => {
        const salt = randomBytes(SALT_LENGTH);
        const { N, r, p } = PASSWORD_HASH_PARAMS;
        const key = await derive(password.normalize('NFKC'), salt, KEY_LENGTH, PASSWORD_HASH_PARAMS);
        return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
      });
    },

    /**
     * Checks `password` against a stored hash in constant time. No stored hash (an account without
     * a password, an unknown e-mail) is never a match, and costs a full hash all the same.
     * `beforeHash` runs once this call holds a hashing slot (the sign-in throttle counts the attempt
     * there, so a caller refused by a full pool has spent none of its budget); it may throw.
     */
    verify(
      password: string,
      stored: string | null | undefined,
      beforeHash?: () => Promise<void>,
    ): Promise<PasswordCheck> {
      const parsed = stored ? parseStoredHash(stored) : undefined;
      return pool.run(async () => {
        await beforeHash?.();
        const normalized = password.normalize('NFKC');
        if (!parsed) {
          await derive(normalized, decoySalt, KEY_LENGTH, PASSWORD_HASH_PARAMS);
          return { ok: false, outdated: false };
        }
        const actual = await derive(normalized, parsed.salt, parsed.hash.length, parsed.params);
        const ok = actual.length === parsed.hash.length && timingSafeEqual(actual, parsed.hash);
        return { ok, outdated: ok && isOutdated(parsed) };
      });
    },

    /** Hashes running and callers waiting on this node. */
    load: pool.load,
  };
}

export type PasswordHashing = ReturnType<typeof createPasswordHashing>;
