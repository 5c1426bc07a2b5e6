/**
 * A key echoed back the ways upstreams and proxies have been seen to (verbatim, split over lines,
 * base64, URL-encoded, hex, JSON-escaped), and the check that a text holds none of them.
 */
import assert from 'node:assert/strict';

/** The encodings of `key` an echo may carry. */
export function keyEncodings(key: string): Record<string, string> {
  const half = Math.floor(key.length / 2);
  return {
    plain: key,
    'split by a newline': `${key.slice(0, half)}\n${key.slice(half)}`,
    base64: Buffer.from(key).toString('base64'),
    base64url: Buffer.from(key).toString('base64url'),
    'URL-encoded': [...key].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join(''),
    hex: Buffer.from(key).toString('hex'),
    'JSON \\u escapes': [...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    reversed: [...key].reverse().join(''),
  };
}

/** One text holding every encoding of `key`, as a hostile or careless error message would. */
export function echoingText(key: string): string {
  return Object.entries(keyEncodings(key))
    .map(([how, text]) => `key (${how}): ${text}`)
    .join('; ');
}

/**
 * Fails when `text` holds any 8-character window of the key or of one of its encodings, whitespace
 * and escapes removed (so a key split over lines, or cut in two, is still found).
 */
export function assertNoKey(text: string, key: string, where = 'text'): void {
  const flat = text.replace(/\s+/g, '');
  const decoded = flat.replace(/\\u([0-9a-f]{4})/gi, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
  for (const [how, encoded] of Object.entries(keyEncodings(key))) {
    const clean = encoded.replace(/\s+/g, '');
    for (let i = 0; i + 8 <= clean.length; i += 1) {
      const window = clean.slice(i, i + 8);
      assert.ok(
        !flat.includes(window) && !decoded.includes(window),
        `${where} leaks the key (${how}): ${JSON.stringify(text).slice(0, 300)}`,
      );
    }
  }
}
