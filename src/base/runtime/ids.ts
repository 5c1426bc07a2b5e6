import { randomFillSync } from 'node:crypto';

/** Makes opaque, URL-safe, unguessable ids (128 random bits) with a type prefix. */
export interface IdGenerator {
  next(
    prefix:
      | 'acc'
      | 'key'
      | 'gen'
      | 'tsk'
      | 'ast'
      | 'req'
      | 'wrk'
      | 'msg'
      | 'col'
      | 'scl'
      | 'alr'
      | 'alm'
      | 'resp',
  ): string;
}

/** Random bytes drawn from the system's generator this many at a time (as `randomUUID` batches). */
const BATCH_BYTES = 4096;
const ID_BYTES = 16;
let batch = Buffer.alloc(0);
let used = 0;

/**
 * 16 fresh random bytes, each used once: a batch is drawn from the CSPRNG at a time and never
 * refilled in place (a new one is allocated), so no two ids share bytes. One draw per id cost a
 * call into OpenSSL and a buffer each, ten or more times per synchronous image (issue 48).
 */
function randomId(): string {
  if (used + ID_BYTES > batch.length) {
    batch = randomFillSync(Buffer.allocUnsafe(BATCH_BYTES));
    used = 0;
  }
  const id = batch.toString('base64url', used, used + ID_BYTES);
  used += ID_BYTES;
  return id;
}

export const randomIds: IdGenerator = {
  next: (prefix) => `${prefix}_${randomId()}`,
};
