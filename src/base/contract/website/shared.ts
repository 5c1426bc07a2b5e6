/**
 * What every page of the website's own API (/web/api) shares: the `website` tag, the session cookie
 * and its security scheme, paging, the source of a work, and the search of saved works and the
 * library. The route schemas validate and serialise with the page modules beside this one, the
 * OpenAPI document lists them under the `website` tag, and the website's types are inferred from
 * them (imported as types only). The /api/v1 shapes they build on (task record, generate body and
 * answer, error body) are the public contract's own.
 */
import { z } from 'zod';
import { GENERATION_MODES, type GenerationMode } from '../../domain/generation-modes.js';
import { pageQuery as contractPageQuery } from '../paging.js';

/** The website's session cookie: an opaque random token, HttpOnly, SameSite=Lax. */
export const SESSION_COOKIE = 'atelier_session';
/** Its name wherever the site is served over https (Secure, Path=/, no Domain: no sibling can plant one). */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;
export const WEBSITE_TAG = 'website';
/** The name the session cookie's security scheme is registered under in the OpenAPI document. */
export const WEBSITE_SESSION_SCHEME = 'websiteSession';
export const websiteSessionSecurityScheme = {
  type: 'apiKey',
  in: 'cookie',
  name: SESSION_COOKIE,
  description:
    'The session cookie set by POST /web/api/session: `atelier_session` over plain http, `__Host-atelier_session` over https. A request carrying two session cookies is refused (401). State-changing requests must also carry an Origin (or Referer) of this server.',
} as const;
/** The security requirement of every signed-in website route. */
export const websiteSession = [{ [WEBSITE_SESSION_SCHEME]: [] }];

export const MAX_WEB_PAGE_LIMIT = 50;

/** A page query of the website's listings, `defaultLimit` items unless asked. */
export const webPageQuery = (defaultLimit: number) => contractPageQuery(MAX_WEB_PAGE_LIMIT, defaultLimit);

/** Where a work was submitted from. */
export const workSourceSchema = z
  .enum(['api', 'web'])
  .describe('Submitted through the API (`api`) or from the website (`web`)');

/** An epoch-milliseconds bound of a date filter. */
const instantQuery = (what: string) =>
  z
    .string({ error: 'must be a time in milliseconds since the epoch' })
    .regex(/^(\d{1,15})?$/, 'must be a time in milliseconds since the epoch')
    .optional()
    .transform((raw) => (raw ? Number(raw) : undefined))
    .describe(what);

/** Optional text that reads as absent when empty (a form submitted with a blank field). */
const optionalText = (max: number, what: string) =>
  z
    .string({ error: 'must be a string' })
    .max(max, `must be at most ${max} characters`)
    .optional()
    .transform((raw) => raw?.trim() || undefined)
    .describe(what);

/** Search and filters shared by saved works and the library (server-side, paged). */
export const searchQuery = {
  q: optionalText(200, 'Only items whose prompt contains this text (case-insensitive)'),
  model: optionalText(100, 'Only items made with this model id'),
  mode: z
    .enum([...GENERATION_MODES, ''], { error: 'must be text, edit or fusion' })
    .optional()
    .transform((mode) => mode || undefined)
    .describe('Only items made in this mode'),
  from: instantQuery('Only items created at or after this time (epoch ms)'),
  to: instantQuery('Only items created before this time (epoch ms)'),
};

/** The search and filters of a saved works or library query, as the routes pass them to the store. */
export interface SearchFilters {
  q?: string | undefined;
  model?: string | undefined;
  mode?: GenerationMode | undefined;
  from?: number | undefined;
  to?: number | undefined;
  /** Only starred works (src/capabilities/curation). */
  starred?: true | undefined;
  /** Only works in this collection of the account (src/capabilities/curation; checked to be the account's first). */
  collection?: string | undefined;
}
