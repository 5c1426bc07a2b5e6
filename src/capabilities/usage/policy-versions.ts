import type { Db } from '../../infra/store/database.js';
import type { PolicyVersionsTable } from '../../infra/store/schema/usage.js';
import { storedTierPolicies, type TierPolicies } from './tier-policies.js';

/** Who wrote a version: a start (ATELIER_POLICY_FILE), the admin API, the console. */
export type PolicySource = PolicyVersionsTable['source'];

/** One version of the tier policy document. */
export interface PolicyVersion {
  version: number;
  tiers: TierPolicies;
  source: PolicySource;
  /** The SHA-256 of ATELIER_POLICY_FILE's bytes, for a version from the file. */
  fileSha256: string | null;
  createdAt: number;
  /** The operator's e-mail, or `file:<path>` for a start. */
  createdBy: string;
}

function versionOf(row: PolicyVersionsTable): PolicyVersion {
  return {
    version: Number(row.version),
    tiers: storedTierPolicies(row.document_json),
    source: row.source,
    fileSha256: row.file_sha256,
    createdAt: Number(row.created_at),
    createdBy: row.created_by,
  };
}

/**
 * The versions of the tier policy document (`policy_versions`): the highest is in force, the others
 * are its history. Versions are numbered without gaps and a version is written only if no other
 * writer took its number first (the primary key), so "write version n + 1" is a compare-and-swap
 * on version n, race-free on both stores without a lock.
 */
export function createPolicyVersions(db: Db) {
  const newestFirst = () => db.selectFrom('policy_versions').selectAll().orderBy('version', 'desc');
  return {
    /** The version in force; undefined before the first start seeded one. */
    async latest(): Promise<PolicyVersion | undefined> {
      const row = await newestFirst().limit(1).executeTakeFirst();
      return row && versionOf(row);
    },

    /** The newest version a start wrote from ATELIER_POLICY_FILE. */
    async latestFromFile(): Promise<PolicyVersion | undefined> {
      const row = await newestFirst().where('source', '=', 'file').limit(1).executeTakeFirst();
      return row && versionOf(row);
    },

    /** The newest `limit` versions, newest first. */
    async list(limit: number): Promise<PolicyVersion[]> {
      return (await newestFirst().limit(limit).execute()).map(versionOf);
    },

    /** Writes `version`; false when another writer took its number first (nothing written). */
    async insert(version: PolicyVersion): Promise<boolean> {
      const result = await db
        .insertInto('policy_versions')
        .values({
          version: version.version,
          document_json: JSON.stringify({ tiers: version.tiers }),
          source: version.source,
          file_sha256: version.fileSha256,
          created_at: version.createdAt,
          created_by: version.createdBy,
        })
        .onConflict((conflict) => conflict.column('version').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    },
  };
}

export type PolicyVersions = ReturnType<typeof createPolicyVersions>;
