import type {} from '@fastify/cookie'; // request.cookies, reply.setCookie/clearCookie
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountResolver } from '../http/authentication.js';
import { ApiError } from '../http/errors.js';
import { SESSION_COOKIE, type Sessions } from './sessions.js';

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

/**
 * The website's session as a way into /api/v1 and /web/api: the session cookie names the account;
 * state-changing requests must also come from our own origin. No cookie → 'not-mine', so the
 * bearer resolver's answer (or 401) stands.
 */
export function sessionResolver(sessions: Sessions, publicBaseUrl: string): AccountResolver {
  return async (request) => {
    const token = request.cookies?.[SESSION_COOKIE];
    if (!token) return 'not-mine';
    // Checked before the lookup, so a cross-site page learns nothing about the cookie's validity.
    if (isUnsafeMethod(request.method)) assertSameOrigin(request, publicBaseUrl);
    return (await sessions.accountOf(token)) ?? 'not-mine';
  };
}

/** The cookie options for a session: HttpOnly, SameSite=Lax, Secure whenever the site is served over https. */
export function sessionCookieOptions(request: FastifyRequest, publicBaseUrl: string, expiresAt?: number) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: request.protocol === 'https' || publicBaseUrl.startsWith('https:'),
    ...(expiresAt === undefined ? {} : { expires: new Date(expiresAt) }),
  };
}

/** Clears the session cookie on the reply. */
export function clearSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  publicBaseUrl: string,
): void {
  reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(request, publicBaseUrl));
}
