import type { Db } from '../../infra/store/database.js';
import { type RetentionSources, shortestDays } from './expiry.js';

/** An account's own retention (days; null: the tier's or the deployment's applies). */
export interface AccountRetention {
  resultsDays: number | null;
  uploadsDays: number | null;
}

/** Where the retention in force comes from: the strictest place that sets one (none: kept until deleted). */
export type RetentionSource = 'account' | 'tier' | 'deployment';

/** One kind's retention in force (results or uploads): the shortest set, and each place's own. */
export interface EffectiveDays {
  /** The days in force (the shortest set); null when nothing sets one (kept until deleted). */
  days: number | null;
  /** Where `days` comes from (the most specific place when two set the same); null with `days`. */
  source: RetentionSource | null;
  account: number | null;
  tier: number | null;
  deployment: number | null;
}

/** The retention in force for an account, results and uploads each on their own. */
export interface EffectiveRetention {
  results: EffectiveDays;
  uploads: EffectiveDays;
}

/** The shortest of the places' days, and which place set it (the most specific on a tie). */
function inForce(places: Record<RetentionSource, number | null>): EffectiveDays {
  const set = (days: number | null | undefined) => (typeof days === 'number' && days > 0 ? days : null);
  const own = { account: set(places.account), tier: set(places.tier), deployment: set(places.deployment) };
  const days = shortestDays(own.account, own.tier, own.deployment) ?? null;
  const source =
    days === null ? null : (['account', 'tier', 'deployment'] as const).find((p) => own[p] === days);
  return { days, source: source ?? null, ...own };
}

/**
 * An account's own retention periods (migration 0075), read and set by operators; with the
 * deployment's and the tier policies' (`sources`), the retention in force and where it comes from.
 */
export function createAccountRetention(db: Db, sources?: RetentionSources) {
  return {
    /** The retention in force for the account (the shortest that applies), or undefined when there is no such account. */
    async effective(accountId: string): Promise<EffectiveRetention | undefined> {
      const row = await db
        .selectFrom('accounts')
        .select(['tier', 'retention_results_days', 'retention_uploads_days'])
        .where('id', '=', accountId)
        .executeTakeFirst();
      if (!row) return undefined;
      const tier = sources?.tier(row.tier);
      return {
        results: inForce({
          account: row.retention_results_days ?? null,
          tier: tier?.results ?? null,
          deployment: sources?.deployment.results ?? null,
        }),
        uploads: inForce({
          account: row.retention_uploads_days ?? null,
          tier: tier?.uploads ?? null,
          deployment: sources?.deployment.uploads ?? null,
        }),
      };
    },

    /** The account's retention, or undefined when there is no such account. */
    async get(accountId: string): Promise<AccountRetention | undefined> {
      const row = await db
        .selectFrom('accounts')
        .select(['retention_results_days', 'retention_uploads_days'])
        .where('id', '=', accountId)
        .executeTakeFirst();
      return (
        row && {
          resultsDays: row.retention_results_days ?? null,
          uploadsDays: row.retention_uploads_days ?? null,
        }
      );
    },

    /** Sets what is given (a number of days, or null to remove it); absent fields stay. */
    async set(accountId: string, change: Partial<AccountRetention>): Promise<void> {
      const values = {
        ...(change.resultsDays === undefined ? {} : { retention_results_days: change.resultsDays }),
        ...(change.uploadsDays === undefined ? {} : { retention_uploads_days: change.uploadsDays }),
      };
      if (Object.keys(values).length > 0)
        await db.updateTable('accounts').set(values).where('id', '=', accountId).execute();
    },
  };
}

export type AccountRetentionStore = ReturnType<typeof createAccountRetention>;
