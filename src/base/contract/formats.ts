/**
 * Formats several routes share, each validated here and stated in the document the same way
 * (`format`, `pattern`, lengths), so a client generated from the document sends only what the
 * server takes.
 */
import { z } from 'zod';
import { fieldError } from './field-error.js';

/** What is wrong with `value` as an absolute http or https URL (what every URL field takes), or undefined. */
export function httpUrlProblem(value: string): string | undefined {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:' ? undefined : 'must be an http(s) URL';
  } catch {
    return 'is not an absolute URL';
  }
}

/** The check of an http(s) URL field, for `.superRefine`. */
export const checkHttpUrl = (value: string, context: z.RefinementCtx) => {
  const problem = httpUrlProblem(value);
  if (problem) context.addIssue({ code: 'custom', message: problem });
};

/** Whether a URL names no user or password (a callback URL may not: they would be logged and sent). */
export function withoutCredentials(value: string): boolean {
  try {
    const { username, password } = new URL(value);
    return username === '' && password === '';
  } catch {
    return true;
  }
}

/** The scheme of an http(s) URL, as the document's `pattern` says it (schemes ignore case). */
export const HTTP_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://';

/** An absolute http(s) URL: `format: uri` and its scheme, in the document; checked by URL parsing. */
export const httpUrlField = () =>
  z
    .string({ error: fieldError('must be a string') })
    .superRefine(checkHttpUrl)
    .meta({ format: 'uri', pattern: HTTP_URL_PATTERN });

/** The login name of an account, as the accounts service checks it (trimmed, then something@something). */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;
export const MAX_EMAIL_LENGTH = 254;

export const emailField = () =>
  z
    .string({ error: fieldError('must be a string') })
    .max(MAX_EMAIL_LENGTH, `must be at most ${MAX_EMAIL_LENGTH} characters`)
    .refine((raw) => EMAIL_PATTERN.test(raw.trim()), 'must be an email address')
    .meta({ format: 'email' });

/** Most characters of an API key's name. */
export const MAX_KEY_NAME_LENGTH = 64;

/** An API key's name: 1 to 64 characters, not blank, no control characters. */
export const keyNameField = () =>
  z
    .string({ error: fieldError('must be a string') })
    .max(MAX_KEY_NAME_LENGTH, `must be 1 to ${MAX_KEY_NAME_LENGTH} characters, without control characters`)
    .regex(
      /^[^\p{Cc}]*[^\s\p{Cc}][^\p{Cc}]*$/u,
      `must be 1 to ${MAX_KEY_NAME_LENGTH} characters, without control characters`,
    )
    .describe(
      `1 to ${MAX_KEY_NAME_LENGTH} characters (not blank, no control characters), to tell the key apart`,
    );
