/** What a secret is recorded as. */
export const REDACTED = '[redacted]';

/** Field names whose values are secrets: never written to the audit log, whatever the caller passes. */
const SECRET_NAMES = new Set(['key', 'api_key', 'apikey', 'password', 'secret', 'token', 'ciphertext']);
const SECRET_SUFFIXES = ['_secret', '_password', '_token', '_ciphertext'];

const isSecretName = (name: string) => {
  const lower = name.toLowerCase();
  return SECRET_NAMES.has(lower) || SECRET_SUFFIXES.some((suffix) => lower.endsWith(suffix));
};

/**
 * A copy of `value` with every secret field (a key, a password, a secret, a token; at any depth)
 * replaced by "[redacted]" when it held something, so the log says a secret changed without it.
 */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([name, field]) => [
      name,
      isSecretName(name) && field !== null && field !== undefined && typeof field !== 'boolean'
        ? REDACTED
        : redact(field),
    ]),
  );
}
