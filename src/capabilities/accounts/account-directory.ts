import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Tier } from '../../base/domain/tiers.js';
import type { Db } from '../../infra/store/database.js';
import type { AccountsTable } from '../../infra/store/schema/accounts.js';

/** An account as the operator console lists it. */
export interface DirectoryEntry {
  id: string;
  email: string;
  tier: Tier;
  createdAt: number;
  disabled: boolean;
  operator: boolean;
  /** The password is one an operator set; the person has not yet set their own. */
  passwordChangeRequired: boolean;
}

/** What the operator's account list may be narrowed to. */
export interface DirectoryFilter {
  /** Text the e-mail contains (lower case; e-mails are stored lower case). */
  q?: string | undefined;
  tier?: Tier | undefined;
  disabled?: boolean | undefined;
  operator?: boolean | undefined;
}

const COLUMNS = [
  'id',
  'email',
  'tier',
  'created_at',
  'disabled_at',
  'operator',
  'password_change_required',
] as const;

function toEntry(
  row: Pick<AccountsTable, 'id' | 'email' | 'tier' | 'created_at' | 'disabled_at'> & {
    operator: number;
    password_change_required: number;
  },
): DirectoryEntry {
  return {
    id: row.id,
    email: row.email,
    tier: row.tier,
    createdAt: Number(row.created_at),
    disabled: row.disabled_at !== null,
    operator: Number(row.operator) === 1,
    passwordChangeRequired: Number(row.password_change_required) === 1,
  };
}

/** `%` and `_` are LIKE's wildcards: a search for "a_b" means those three characters. */
const likeContains = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** A password to hand over once (an operator's reset): 18 random bytes, 24 URL-safe characters. */
export function generateOneTimePassword(): string {
  return randomBytes(18).toString('base64url');
}

/**
 * The accounts as a directory for the operator console: searched and paged, counted per tier,
 * e-mails of ids. Reads only; changes go through the accounts service (which announces them).
 */
export function createAccountDirectory({ db }: { db: Db }) {
  function filtered(filter: DirectoryFilter) {
    let query = db.selectFrom('accounts');
    if (filter.q !== undefined)
      query = query.where(sql<boolean>`email like ${likeContains(filter.q)} escape '\\'`);
    if (filter.tier !== undefined) query = query.where('tier', '=', filter.tier);
    if (filter.disabled !== undefined)
      query = query.where('disabled_at', filter.disabled ? 'is not' : 'is', null);
    if (filter.operator !== undefined) query = query.where('operator', '=', filter.operator ? 1 : 0);
    return query;
  }

  return {
    /** A page of the accounts that match, oldest first, and how many match in all. */
    async search(
      filter: DirectoryFilter,
      page: { offset: number; limit: number },
    ): Promise<{ items: DirectoryEntry[]; total: number }> {
      const [rows, count] = await Promise.all([
        filtered(filter)
          .select(COLUMNS)
          .orderBy('created_at')
          .orderBy('id')
          .limit(page.limit)
          .offset(page.offset)
          .execute(),
        filtered(filter)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirst(),
      ]);
      return {
        total: Number(count?.n ?? 0),
        items: rows.map(toEntry),
      };
    },

    /** One account as the directory lists it; undefined when there is none. */
    async entry(id: string): Promise<DirectoryEntry | undefined> {
      const row = await db.selectFrom('accounts').select(COLUMNS).where('id', '=', id).executeTakeFirst();
      return row && toEntry(row);
    },

    /** Accounts per tier (tiers without any are left out). */
    async countsByTier(): Promise<Map<Tier, number>> {
      const rows = await db
        .selectFrom('accounts')
        .select(['tier', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('tier')
        .execute();
      return new Map(rows.map((row) => [row.tier, Number(row.n)]));
    },

    /** How many accounts hold their own key, per upstream provider (providers without any are left out). */
    async ownKeyCounts(): Promise<Map<string, number>> {
      const rows = await db
        .selectFrom('upstream_keys')
        .select(['provider', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('provider')
        .execute();
      return new Map(rows.map((row) => [row.provider, Number(row.n)]));
    },

    /** The e-mails of these accounts, by id (ids of no account are left out). */
    async emailsOf(ids: readonly string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      const rows = await db.selectFrom('accounts').select(['id', 'email']).where('id', 'in', ids).execute();
      return new Map(rows.map((row) => [row.id, row.email]));
    },
  };
}

export type AccountDirectory = ReturnType<typeof createAccountDirectory>;
