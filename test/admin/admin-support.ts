import type { TestApp } from '../support/test-server.js';
import { signedInCookie, TEST_ORIGIN } from '../support/website-session.js';

export const ADMIN = '/api/admin/v1';
export const PASSWORD = 'correct horse battery';

/** Makes the account an operator, as `bin/atelier accounts set-operator` does. */
export async function makeOperator(t: TestApp, accountId: string): Promise<void> {
  await t.core.accounts.setOperator(accountId, true);
}

/** An operator (with a password) and a plain account, their keys, and the operator's website session. */
export async function operatorAndUser(t: TestApp) {
  const operator = await t.createAccount(undefined, { tier: 'pro', password: PASSWORD });
  await makeOperator(t, operator.id);
  const user = await t.createAccount(undefined, { tier: 'trial', password: PASSWORD });
  const cookie = await signedInCookie(t.app, { email: operator.email, password: PASSWORD });
  return {
    operator,
    user,
    /** The operator's Bearer header. */
    op: { authorization: `Bearer ${operator.apiKey}` },
    /** The plain account's Bearer header. */
    plain: { authorization: `Bearer ${user.apiKey}` },
    /** The operator's session, from the site's own origin (what state-changing requests need). */
    web: { cookie, origin: TEST_ORIGIN },
    cookie,
  };
}

/** GET, and the state-changing methods with an optional JSON body, through `app.inject`. */
export function requests(t: TestApp) {
  return {
    get: (url: string, headers: Record<string, string>) => t.app.inject({ method: 'GET', url, headers }),
    send: (
      method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
      url: string,
      headers: Record<string, string>,
      payload?: Record<string, unknown>,
    ) => t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) }),
  };
}
