import type { Generated } from 'kysely';
import type { GenerationMode } from '../../../base/domain/generation-modes.js';
import type { ImageSize } from '../../../base/domain/image-sizes.js';

/** The tables of generations (src/use-cases/generations): one row per generate request, and the per-account totals. */

export interface GenerationsTable {
  id: string;
  account_id: string;
  /** Where the request came from: the API (keys) or the website (sessions). */
  source: 'api' | 'web';
  prompt: string;
  model: string;
  mode: GenerationMode;
  aspect: string;
  /**
   * 1 for an edit or fusion whose caller named no aspect: the providers keep the reference's shape
   * (`aspect` is the model's ratio nearest it). Absent on rows written before migration 0021 (0).
   */
  aspect_from_reference?: number;
  image_size: ImageSize;
  image_count: number;
  /** The request's imageUrls as given (JSON array). */
  refs_json: string;
  /** Blob keys of the stored reference images, in order (JSON array). */
  ref_keys_json: string;
  /** Blob key of an edit's mask (issue 29); null without one, absent on rows before migration 0026. */
  mask_key?: string | null;
  /** The quality tier sent upstream (issue 41, migration 0058); null: none (the upstream's auto). */
  quality?: string | null;
  /** 1 when generate answered upstream_error: kept for the record, left out of history. */
  rejected: number;
  created_at: number;
  /** The account's work this one refines (lineage, migration 0069); null or absent: none. */
  parent_id?: string | null;
  /** The image of the parent refined (one of its tasks). */
  parent_task_id?: string | null;
  /** The turn's instruction ("make the sky darker"), as the caller phrased it; null: the prompt is all. */
  instruction?: string | null;
  /** The action on the parent image that made this work (issue 45, migration 0072); null: a generation. */
  action?: string | null;
  /** The action's settings as JSON (`{"scale":2}`); null without an action. */
  action_json?: string | null;
  /** Set when the owner deleted it from saved works: hidden from the gallery, marked removed in history. */
  deleted_at: number | null;
  /**
   * When the work's files were removed (migration 0074): deleted past the Undo window, or expired.
   * The row and its tasks stay (task records, cost history); its images answer 410. Absent before.
   */
  purged_at?: number | null;
  /**
   * 1 for a zero-retention work (migration 0076: its key stores nothing, or the request asked
   * `Atelier-Retention: none`): purged once its images were delivered, or an hour after they ended.
   */
  zero_retention?: number;
}

/** Per-account totals of history and saved works, kept in the same transactions that change them. */
export interface GenerationCountsTable {
  account_id: string;
  /** Generations not rejected (what history lists). */
  history_total: number;
  /** Generations neither rejected nor deleted from saved works (what the gallery lists). */
  saved_total: number;
  /** Moves with every change of what the account's history shows (pages cached in memory check it). */
  history_version: Generated<number>;
}

/** The tables above, as the database's schema (`Database`) lists them. */
export interface GenerationTables {
  generations: GenerationsTable;
  generation_counts: GenerationCountsTable;
}
