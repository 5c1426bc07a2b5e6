/** The tables of the website's own state (src/edges/website): the creation view and the Create form's presets. */

/** The website's creation view, per account (owned by src/web). */
export interface CreationViewsTable {
  account_id: string;
  /** Finished cards up to this instant were cleared: the view leaves out tasks final by then. */
  cleared_at: number;
}

/** A named preset of the website's Create form, per account (owned by src/edges/website; migration 0034). */
export interface PromptPresetsTable {
  account_id: string;
  name: string;
  /** The preset's settings as the website sent them (JSON: model, aspect, imageSize, count, suffix). */
  settings_json: string;
  updated_at: number;
}

/** The tables above, as the database's schema (`Database`) lists them. */
export interface WebsiteTables {
  creation_views: CreationViewsTable;
  prompt_presets: PromptPresetsTable;
}
