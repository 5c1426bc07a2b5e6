import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Encrypts small secrets (upstream keys) with AES-256-GCM under the master key. */
export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

const VERSION = 'v1';

/** Builds a SecretBox from a 32-byte key. */
export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('master key must be 32 bytes');
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [VERSION, iv.toString('base64url'), tag.toString('base64url'), body.toString('base64url')].join(
        '.',
      );
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || body === undefined)
        throw new Error('unknown sealed secret format');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
  };
}

/** Decodes ATELIER_MASTER_KEY: 64 hex characters or base64 of 32 bytes. */
export function decodeMasterKey(value: string): Buffer {
  const trimmed = value.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) {
    throw new Error(
      'Invalid configuration:\n  ATELIER_MASTER_KEY: must be 32 bytes, as 64 hex characters or base64',
    );
  }
  return key;
}

/**
 * Returns the master key: from ATELIER_MASTER_KEY when set, else from `master.key` in the data
 * dir, created (mode 0600) on first use. The server and the CLI share it this way.
 */
export function loadOrCreateMasterKey(dataDir: string, fromEnv: string | undefined): Buffer {
  if (fromEnv) return decodeMasterKey(fromEnv);
  const path = join(dataDir, 'master.key');
  if (!existsSync(path)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    try {
      // 'wx': if another process created it a moment ago, keep theirs.
      writeFileSync(path, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    chmodSync(path, 0o600);
  }
  return decodeMasterKey(readFileSync(path, 'utf8'));
}
