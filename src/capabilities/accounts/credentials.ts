import { hash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'atl_';

/** A new API key: prefixed, 256 random bits. Shown once; only its hash is stored. */
export function generateApiKey(): string {
  return `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/**
 * API keys are high-entropy, so a plain SHA-256 is the right hash: it makes the lookup one
 * indexed equality read, and a wrong key reveals nothing through timing. One-shot `hash` (no Hash
 * object): 0.25 µs against 0.68 µs for createHash…digest, on every authenticated request.
 */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/**
 * The prefix and the first four characters after it (`atl_abcd…`), for telling keys apart in
 * listings and naming one to revoke (24 of the key's 256 random bits). Keys issued before
 * migration 0028 keep the hint they had then, their last four characters (`atl_…wxyz`).
 */
export function apiKeyHint(key: string): string {
  return `${key.slice(0, API_KEY_PREFIX.length + 4)}…`;
}

/** A readable random password for the demo account. */
export function generatePassword(): string {
  return randomBytes(12).toString('base64url');
}
