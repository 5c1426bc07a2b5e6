import { scrypt } from 'node:crypto';
import type { ScryptParams } from '../../src/capabilities/accounts/password-hashing.js';

/** A password hash in the stored format under chosen parameters (what an older release wrote). */
export async function legacyPasswordHash(password: string, params: ScryptParams): Promise<string> {
  const salt = Buffer.alloc(16, 7);
  const key = await new Promise<Buffer>((resolve, reject) =>
    scrypt(password, salt, 32, { ...params, maxmem: 64 * 1024 * 1024 }, (error, derived) =>
      error ? reject(error) : resolve(derived),
    ),
  );
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}
