import { createHash, randomBytes } from 'node:crypto';
import { Forbidden } from '../../base/domain/errors.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { Account } from '../../capabilities/accounts/index.js';
import type { Db } from '../../infra/store/database.js';
import { ACCOUNT_DISABLED } from '../http/authentication.js';

export { SESSION_COOKIE } from '../../base/contract/website/shared.js';

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** How long a session lasts: at most `absoluteMs` after sign-in, and ends after `idleMs` unused. */
export interface SessionLimits {
  absoluteMs: number;
  idleMs: number;
}

export interface SessionPolicy {
  /** A sign-in without "keep me signed in": a browser-session cookie. */
  standard: SessionLimits;
  /** "Keep me signed in": a cookie that survives the browser, still bounded. */
  persistent: SessionLimits;
  /** Last use is written at most this often per session (not on every request). */
  touchEveryMs: number;
}

/**
 * ASVS 3.3 / NIST AAL2: a standard session ends 12 hours after sign-in, or after 1 hour unused;
 * "keep me signed in" lasts at most 30 days, or 7 days unused.
 */
export const DEFAULT_SESSION_POLICY: SessionPolicy = {
  standard: { absoluteMs: 12 * HOUR, idleMs: HOUR },
  persistent: { absoluteMs: 30 * DAY, idleMs: 7 * DAY },
  touchEveryMs: MINUTE,
};

/** The stored form of a session token. Tokens carry 256 random bits, so a plain SHA-256 suffices. */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

const tokenPattern = /^[A-Za-z0-9_-]{43}$/;

/** What a session is checked against: the accounts capability's view of the account. */
export interface SessionAccounts {
  /** The account and its current session generation; undefined when unknown or disabled. */
  sessionStanding(accountId: string): Promise<{ account: Account; generation: number } | undefined>;
}

/**
 * Website sessions, in the database so that every node of a deployment shares them. The cookie
 * holds a random token; the table holds only its hash, so a database leak yields no live cookie.
 * A session ends at its absolute expiry, after its idle timeout, when its account's session
 * generation moves (password changed, account disabled — on any node, by any process) or when its
 * account is disabled.
 */
export function createSessions({
  db,
  clock,
  accounts,
  policy = DEFAULT_SESSION_POLICY,
}: {
  db: Db;
  clock: Clock;
  accounts: SessionAccounts;
  policy?: SessionPolicy;
}) {
  const limitsOf = (persistent: boolean) => (persistent ? policy.persistent : policy.standard);
  const byHash = (token: string) => db.deleteFrom('sessions').where('id_hash', '=', hashSessionToken(token));

  return {
    /**
     * Starts a session for an account; returns the token for the cookie and, for a persistent
     * session, the cookie's expiry. A disabled account gets none (403).
     */
    async start(
      accountId: string,
      { persistent = false }: { persistent?: boolean } = {},
    ): Promise<{ token: string; expiresAt: number | undefined }> {
      const standing = await accounts.sessionStanding(accountId);
      if (!standing) throw new Forbidden(ACCOUNT_DISABLED);
      const token = randomBytes(32).toString('base64url');
      const now = clock.now();
      const expiresAt = now + limitsOf(persistent).absoluteMs;
      await db
        .insertInto('sessions')
        .values({
          id_hash: hashSessionToken(token),
          account_id: accountId,
          created_at: now,
          expires_at: expiresAt,
          generation: standing.generation,
          last_seen_at: now,
          persistent: persistent ? 1 : 0,
        })
        .execute();
      // Opportunistic cleanup: sign-ins are rare enough that this costs nothing, and keeps the table
      // small (sessions ended by their idle timeout go when their absolute expiry passes).
      await db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
      return { token, expiresAt: persistent ? expiresAt : undefined };
    },

    /**
     * The account of a live session token, or undefined (unknown, malformed, expired, idle too
     * long, of an older generation, or of a disabled account). Renews the session's last use, at
     * most once per `touchEveryMs`.
     */
    async accountOf(token: string): Promise<Account | undefined> {
      if (!tokenPattern.test(token)) return undefined;
      const idHash = hashSessionToken(token);
      const row = await db
        .selectFrom('sessions')
        .select(['account_id', 'expires_at', 'generation', 'last_seen_at', 'persistent'])
        .where('id_hash', '=', idHash)
        .executeTakeFirst();
      if (!row) return undefined;
      const now = clock.now();
      const lastSeen = Number(row.last_seen_at);
      const live = Number(row.expires_at) > now && now - lastSeen < limitsOf(row.persistent === 1).idleMs;
      const standing = live ? await accounts.sessionStanding(row.account_id) : undefined;
      if (!standing || standing.generation !== Number(row.generation)) {
        // Ended for good (time only moves on, a generation never comes back): the row goes.
        await byHash(token).execute();
        return undefined;
      }
      if (now - lastSeen >= policy.touchEveryMs) {
        await db.updateTable('sessions').set({ last_seen_at: now }).where('id_hash', '=', idHash).execute();
      }
      return standing.account;
    },

    /** Whether the session was started with "keep me signed in". */
    async isPersistent(token: string | undefined): Promise<boolean> {
      if (!token || !tokenPattern.test(token)) return false;
      const row = await db
        .selectFrom('sessions')
        .select('persistent')
        .where('id_hash', '=', hashSessionToken(token))
        .executeTakeFirst();
      return row?.persistent === 1;
    },

    /** Ends a session (sign-out, or the old session replaced at sign-in). */
    async end(token: string): Promise<void> {
      if (!tokenPattern.test(token)) return;
      await byHash(token).execute();
    },

    /** Ends every session of the account, on every node ("sign out everywhere"). */
    async endAll(accountId: string): Promise<void> {
      await db.deleteFrom('sessions').where('account_id', '=', accountId).execute();
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;
