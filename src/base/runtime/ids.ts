import { randomBytes } from 'node:crypto';

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

export const randomIds: IdGenerator = {
  next: (prefix) => `${prefix}_${randomBytes(16).toString('base64url')}`,
};
