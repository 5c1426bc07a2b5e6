/** Sign-in of the website tests' accounts, from the site's own origin. */
import type { TestApp } from '../support/test-server.js';
import { signInRequest } from '../support/website-session.js';

export const PASSWORD = 'correct horse battery';

/** POST /web/api/session as `email` (with `PASSWORD` unless told), from the test app's origin. */
export function signIn(t: TestApp, email: string, password = PASSWORD, headers: Record<string, string> = {}) {
  return signInRequest(t.app, { email, password }, headers);
}
