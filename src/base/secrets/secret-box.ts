import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Encrypts small secrets (upstream keys, webhook signing secrets) with AES-256-GCM under the
 * master key. Each seal is bound to the row it belongs to: `context` (account, provider…) is the
 * cipher's associated data, so a seal copied into another row — by anyone who can write the
 * database but does not hold the master key — does not open there.
 */
export interface SecretBox {
  seal(plaintext: string, context: string): string;
  /** Opens a seal made for `context`; throws for any other context, or a tampered seal. */
  open(sealed: string, context: string): string;
  /**
   * For a seal made before seals were bound to their row (format v1, no associated data): the
   * same secret sealed for `context`. Undefined for a seal that is already bound.
   */
  bindLegacy(sealed: string, context: string): string | undefined;
}

/** v1: no associated data (before issue 25); v2: bound to its row's context. */
const LEGACY = 'v1';
const BOUND = 'v2';

/** The associated data of a context: its own prefix, so no context is another's prefix. */
const aad = (context: string) => Buffer.from(`atelier-seal:${context}`, 'utf8');

/** A context naming a row by its parts, unambiguously (no separator can be forged inside a part). */
export const sealContext = (...parts: string[]) => JSON.stringify(parts);

/** Builds a SecretBox from a 32-byte key. */
export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('master key must be 32 bytes');
  const decrypt = (sealed: string, expect: string, context: string | undefined) => {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== expect || !iv || !tag || body === undefined)
      throw new Error('unknown sealed secret format');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    if (context !== undefined) decipher.setAAD(aad(context));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  };
  const seal = (plaintext: string, context: string) => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(aad(context));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [BOUND, iv.toString('base64url'), tag.toString('base64url'), body.toString('base64url')].join('.');
  };
  return {
    seal,
    open: (sealed, context) => decrypt(sealed, BOUND, context),
    bindLegacy: (sealed, context) =>
      sealed.startsWith(LEGACY_SEAL_PREFIX) ? seal(decrypt(sealed, LEGACY, undefined), context) : undefined,
  };
}

/** How a stored seal of the legacy, unbound format begins (the start binds those, `bindLegacySeals`). */
export const LEGACY_SEAL_PREFIX = `${LEGACY}.`;

/**
 * Re-seals each legacy seal of `rows` for its row's context, writing it with `replace` (which
 * should write only if the row still holds the legacy seal, so nodes starting together agree).
 * Returns how many were bound.
 */
export async function bindLegacySeals<Row extends { sealed: string }>(
  secrets: SecretBox,
  rows: Row[],
  contextOf: (row: Row) => string,
  replace: (row: Row, bound: string) => Promise<void>,
): Promise<number> {
  let bound = 0;
  for (const row of rows) {
    const next = secrets.bindLegacy(row.sealed, contextOf(row));
    if (next === undefined) continue;
    await replace(row, next);
    bound++;
  }
  return bound;
}

/**
 * A key for one purpose derived from the master key (HKDF-SHA-256, `label` as info): every node
 * sharing the master key derives the same one, and no two labels give related keys.
 */
export function deriveKey(masterKey: Buffer, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `atelier:${label}`, 32));
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
