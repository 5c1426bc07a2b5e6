import type { AssetKind } from '../../../base/domain/asset-kinds.js';

/** The tables of assets (src/capabilities/assets) and the upload quota (src/capabilities/uploads). */

export interface AssetsTable {
  id: string;
  account_id: string;
  kind: AssetKind;
  blob_key: string;
  url: string;
  content_type: string;
  bytes: number;
  width: number;
  height: number;
  sha256: string;
  generation_id: string | null;
  task_id: string | null;
  created_at: number;
  /** An upload's file name as sent (migration 0027); null for results and older uploads. */
  original_name: string | null;
}

/** Uploads an account stored on one UTC day and their bytes: its daily upload quota (migration 0017). */
export interface UploadUsageTable {
  account_id: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  uploads: number;
  bytes: number;
}

/** The tables above, as the database's schema (`Database`) lists them. */
export interface AssetTables {
  assets: AssetsTable;
  upload_usage: UploadUsageTable;
}
