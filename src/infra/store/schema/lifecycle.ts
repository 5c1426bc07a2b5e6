/** The tables of the data lifecycle (src/infra/blobs/blob-purges.ts, src/use-cases/lifecycle). */

/** Why a file is to be removed. */
export type PurgeReason = 'deleted' | 'expired' | 'erased' | 'zero_retention';

/**
 * The durable to-do list of files to remove (migration 0074): one row per blob key. Undone while
 * `done_at` is null; a node claims a due row with a lease; done rows stay as tombstones (410).
 */
export interface BlobPurgesTable {
  blob_key: string;
  /** The account whose row stopped using the file (null when none is known). */
  account_id: string | null;
  reason: PurgeReason;
  /** When the file may be removed. */
  due_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  /** When the file and its renditions were removed; null while still to do. */
  done_at: number | null;
}

export interface LifecycleTables {
  blob_purges: BlobPurgesTable;
}
