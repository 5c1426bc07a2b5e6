import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { SECURE_SESSION_COOKIE, SESSION_COOKIE } from '../../src/base/contract/website/shared.js';

/** The session cookie pair (`name=value`, either name) of a website sign-in answer (POST /web/api/session). */
export function sessionCookieOf(response: { headers: Record<string, unknown> }): string {
  const header = [response.headers['set-cookie']]
    .flat()
    .find((c) => [SESSION_COOKIE, SECURE_SESSION_COOKIE].some((name) => String(c).startsWith(`${name}=`)));
  assert.ok(header, 'a session cookie is set');
  return String(header).split(';')[0] as string;
}

/** The test apps' public base URL, which state-changing website requests must come from. */
export const TEST_ORIGIN = 'http://127.0.0.1:8080';

type Injector = Pick<FastifyInstance, 'inject'>;

/** POST /web/api/session from the site's own origin (`remember`: "keep me signed in"). */
export function signInRequest(
  app: Injector,
  body: { email: string; password: string; remember?: boolean },
  headers: Record<string, string> = {},
) {
  return app.inject({
    method: 'POST',
    url: '/web/api/session',
    headers: { origin: TEST_ORIGIN, ...headers },
    payload: body,
  });
}

/** Signs in and returns the session cookie pair (`name=value`) for the next requests. */
export async function signedInCookie(
  app: Injector,
  body: { email: string; password: string; remember?: boolean },
  headers: Record<string, string> = {},
): Promise<string> {
  const response = await signInRequest(app, body, headers);
  assert.equal(response.statusCode, 200, response.body);
  return sessionCookieOf(response);
}

/** Whether the session cookie still signs in (GET /web/api/session). */
export async function isSignedIn(app: Injector, cookie: string): Promise<boolean> {
  const response = await app.inject({ method: 'GET', url: '/web/api/session', headers: { cookie } });
  assert.equal(response.statusCode, 200, response.body);
  return (response.json() as { signedIn: boolean }).signedIn === true;
}
