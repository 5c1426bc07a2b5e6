/** Key shapes of the supported upstreams, scrubbed even when the key itself is not known here. */
const KEY_PATTERNS = [/AIza[0-9A-Za-z_-]{20,}/g, /\bsk-[A-Za-z0-9_-]{8,}/g, /\br8_[A-Za-z0-9]{8,}/g];

/**
 * An upstream message fit for a task's `error` and for logs: secrets removed (some upstreams
 * echo the key they refused), whitespace collapsed, bounded in length.
 */
export function safeMessage(
  text: string,
  secrets: ReadonlyArray<string | null | undefined> = [],
  maxLength = 500,
): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  for (const pattern of KEY_PATTERNS) out = out.replace(pattern, '[redacted]');
  out = out.replace(/\s+/g, ' ').trim();
  return out.length > maxLength ? `${out.slice(0, maxLength - 1)}…` : out;
}
