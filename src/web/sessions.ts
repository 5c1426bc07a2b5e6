import { createHash, randomBytes } from 'node:crypto';
import type { Account } from '../accounts/accounts-repository.js';
import { SESSION_COOKIE } from '../contract/website.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../store/database.js';

export { SESSION_COOKIE };
/** Sessions end 30 days after sign-in, used or not (no sliding renewal: a stolen cookie ages out). */
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** The stored form of a session token. Tokens carry 256 random bits, so a plain SHA-256 suffices. */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

const tokenPattern = /^[A-Za-z0-9_-]{43}$/;

/**
 * Website sessions, in the database so that every node of a deployment shares them. The cookie
 * holds a random token; the table holds only its hash, so a database leak yields no live cookie.
 */
export function createSessions({
  db,
  clock,
  accounts,
}: {
  db: Db;
  clock: Clock;
  /** The accounts capability, which the session's account is read through. */
  accounts: { findById(id: string): Promise<Account | undefined> };
}) {
  return {
    /** Starts a session for an account; returns the token for the cookie and its expiry. */
    async start(accountId: string): Promise<{ token: string; expiresAt: number }> {
      const token = randomBytes(32).toString('base64url');
      const now = clock.now();
      const expiresAt = now + SESSION_TTL_MS;
      await db
        .insertInto('sessions')
        .values({
          id_hash: hashSessionToken(token),
          account_id: accountId,
          created_at: now,
          expires_at: expiresAt,
        })
        .execute();
      // Opportunistic cleanup: sign-ins are rare enough that this costs nothing, and keeps the table small.
      await db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
      return { token, expiresAt };
    },

    /** The account of a live session token, or undefined (unknown, malformed or expired). */
    async accountOf(token: string): Promise<Account | undefined> {
      if (!tokenPattern.test(token)) return undefined;
      const row = await db
        .selectFrom('sessions')
        .select(['account_id', 'expires_at'])
        .where('id_hash', '=', hashSessionToken(token))
        .executeTakeFirst();
      if (!row || Number(row.expires_at) <= clock.now()) return undefined;
      return accounts.findById(row.account_id);
    },

    /** Ends a session (sign-out, or the old session replaced at sign-in). */
    async end(token: string): Promise<void> {
      if (!tokenPattern.test(token)) return;
      await db.deleteFrom('sessions').where('id_hash', '=', hashSessionToken(token)).execute();
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;
