import type {} from '@fastify/cookie'; // request.cookies, reply.setCookie/clearCookie
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SECURE_SESSION_COOKIE, SESSION_COOKIE } from '../../base/contract/website/shared.js';
import type { AccountResolver } from '../http/authentication.js';
import { ApiError } from '../http/errors.js';
import type { Sessions } from './sessions.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A route a session may use while its account must replace a password an operator set
     * (setting the new password, reading the session state); every other answers 403.
     */
    beforePasswordChange?: boolean;
  }
}

/** What a session is told, anywhere but where it sets a new password, after an operator's reset. */
export const PASSWORD_CHANGE_REQUIRED =
  "An operator reset this account's password: choose a new one first (POST /web/api/account/password with the password you signed in with); until then this session can do nothing else";

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** True for methods that may change state, the ones a cross-site request must not be able to send. */
export function isUnsafeMethod(method: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase());
}

function originOf(value: string | undefined): string | undefined {
  if (!value || value === 'null') return undefined;
  try {
    return new URL(value).origin;
  } catch {
    return undefined;
  }
}

/**
 * CSRF defence for cookie-authenticated requests, in addition to SameSite=Lax (which does not
 * separate two ports of one host, nor sibling subdomains): the request's Origin (or, when a
 * browser leaves it out, its Referer) must be this server's own origin — the configured public
 * base URL, or the origin the request itself was addressed to. Anything else is 403 `forbidden`.
 */
export function assertSameOrigin(request: FastifyRequest, publicBaseUrl: string): void {
  const claimed = originOf(request.headers.origin) ?? originOf(request.headers.referer);
  if (claimed === undefined) {
    throw new ApiError(
      'forbidden',
      'Cross-site request refused: the request carries no Origin or Referer header',
    );
  }
  const own = new Set([new URL(publicBaseUrl).origin]);
  const addressed = originOf(`${request.protocol}://${request.host}`);
  if (addressed) own.add(addressed);
  if (!own.has(claimed))
    throw new ApiError('forbidden', `Cross-site request refused: origin ${claimed} is not allowed`);
}

/** Whether the site is served over https here: the request came over https, or the public base URL is https. */
function overHttps(request: FastifyRequest, publicBaseUrl: string): boolean {
  return request.protocol === 'https' || publicBaseUrl.startsWith('https:');
}

/**
 * The session cookie's name for this request: `__Host-atelier_session` over https (the browser
 * only accepts it Secure, on Path=/, for this host alone, so no sibling subdomain or plain-http
 * page can plant one), `atelier_session` over plain http.
 */
export function sessionCookieName(request: FastifyRequest, publicBaseUrl: string): string {
  return overHttps(request, publicBaseUrl) ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

/** How many cookies named `name` the request's Cookie header(s) carry. */
function cookieCount(request: FastifyRequest, name: string): number {
  const header = request.headers.cookie;
  if (!header) return 0;
  let count = 0;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if ((eq < 0 ? pair : pair.slice(0, eq)).trim() === name) count++;
  }
  return count;
}

/**
 * The request's session token, if any. Two or more session cookies are refused (401), as two
 * Authorization headers are: a cookie planted with a longer path (cookie tossing) would otherwise
 * be the one read, and the person's next action would land in the planter's account.
 */
export function sessionTokenOf(request: FastifyRequest, publicBaseUrl: string): string | undefined {
  const name = sessionCookieName(request, publicBaseUrl);
  if (cookieCount(request, name) > 1) {
    throw new ApiError('unauthorized', `Send exactly one ${name} cookie; sign out and sign in again`);
  }
  return request.cookies?.[name] || undefined;
}

/**
 * The website's session as a way into /api/v1, /web/api and the operator console's API: the
 * session cookie names the account; state-changing requests must also come from our own origin. No
 * cookie → 'not-mine', so the bearer resolver's answer (or 401) stands. While the account must
 * replace a password an operator set, the session opens only the routes marked
 * `beforePasswordChange` (403 `password_change_required` elsewhere); API keys are not affected.
 */
export function sessionResolver(sessions: Sessions, publicBaseUrl: string): AccountResolver {
  return async (request) => {
    const token = sessionTokenOf(request, publicBaseUrl);
    if (!token) return 'not-mine';
    // Checked before the lookup, so a cross-site page learns nothing about the cookie's validity.
    if (isUnsafeMethod(request.method)) assertSameOrigin(request, publicBaseUrl);
    const account = await sessions.accountOf(token);
    if (!account) return 'not-mine';
    if (account.passwordChangeRequired && request.routeOptions.config?.beforePasswordChange !== true)
      throw new ApiError('password_change_required', PASSWORD_CHANGE_REQUIRED);
    return account;
  };
}

/**
 * The cookie options for a session: HttpOnly, SameSite=Lax, Path=/, no Domain (host-only), Secure
 * whenever the site is served over https. A persistent session's cookie expires with it; any other
 * is a browser-session cookie.
 */
export function sessionCookieOptions(request: FastifyRequest, publicBaseUrl: string, expiresAt?: number) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: overHttps(request, publicBaseUrl),
    ...(expiresAt === undefined ? {} : { expires: new Date(expiresAt) }),
  };
}

/** Sets the session cookie (its name depends on https) on the reply. */
export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  publicBaseUrl: string,
  session: { token: string; expiresAt: number | undefined },
): void {
  reply.setCookie(
    sessionCookieName(request, publicBaseUrl),
    session.token,
    sessionCookieOptions(request, publicBaseUrl, session.expiresAt),
  );
}

/** Clears the session cookie on the reply. */
export function clearSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  publicBaseUrl: string,
): void {
  reply.clearCookie(sessionCookieName(request, publicBaseUrl), sessionCookieOptions(request, publicBaseUrl));
}
