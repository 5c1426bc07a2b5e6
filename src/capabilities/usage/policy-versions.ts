import type { Db } from '../../infra/store/database.js';
import type { PolicyVersionsTable } from '../../infra/store/schema/usage.js';
import { createVersionedDocuments, type DocumentVersion } from '../../infra/store/versioned-documents.js';
import { type TierPolicies, tierPoliciesOf } from './tier-policies.js';

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

export function versionOf(stored: DocumentVersion): PolicyVersion {
  return {
    version: stored.version,
    tiers: tierPoliciesOf(stored.document),
    source: stored.source as PolicySource,
    fileSha256: stored.fileSha256,
    createdAt: stored.createdAt,
    createdBy: stored.createdBy,
  };
}

/**
 * The versions of the tier policy document (`policy_versions`), kept as every versioned operator
 * document is (src/infra/store/versioned-documents.ts): the highest is in force, the others are its
 * history; "write version n + 1" is a compare-and-swap on version n (the primary key), race-free on
 * both stores without a lock.
 */
export function createPolicyVersions(db: Db) {
  const documents = createVersionedDocuments(db, 'policy_versions');
  const maybe = (stored: DocumentVersion | undefined) => stored && versionOf(stored);
  return {
    /** The stored versions as documents (what every node's refresh reads: `watchVersions`). */
    documents,
    /** The version in force; undefined before the first start seeded one. */
    latest: async (): Promise<PolicyVersion | undefined> => maybe(await documents.current()),
    /** The newest version a start wrote from ATELIER_POLICY_FILE. */
    latestFromFile: async (): Promise<PolicyVersion | undefined> => maybe(await documents.lastFromFile()),
    /** The newest `limit` versions, newest first. */
    list: async (limit: number): Promise<PolicyVersion[]> => (await documents.list(limit)).map(versionOf),
    /** Writes `version`; false when another writer took its number first (nothing written). */
    async insert(version: PolicyVersion): Promise<boolean> {
      const written = await documents.append({
        after: version.version - 1,
        document: { tiers: version.tiers },
        source: version.source,
        fileSha256: version.fileSha256,
        createdBy: version.createdBy,
        at: version.createdAt,
      });
      return written !== undefined;
    },
  };
}

export type PolicyVersions = ReturnType<typeof createPolicyVersions>;
