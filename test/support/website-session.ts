import assert from 'node:assert/strict';
import { SESSION_COOKIE } from '../../src/contract/website.js';

/** The session cookie pair (`name=value`) of a website sign-in answer (POST /web/api/session). */
export function sessionCookieOf(response: { headers: Record<string, unknown> }): string {
  const header = [response.headers['set-cookie']]
    .flat()
    .find((c) => String(c).startsWith(`${SESSION_COOKIE}=`));
  assert.ok(header, 'a session cookie is set');
  return String(header).split(';')[0] as string;
}
