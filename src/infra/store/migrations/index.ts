import type { Migration } from 'kysely';
import { migration as m0001 } from './0001_core.js';
import { migration as m0002 } from './0002_web.js';
import { migration as m0003 } from './0003_idempotency.js';
import { migration as m0004 } from './0004_webhooks.js';
import { migration as m0005 } from './0005_task_reconcile.js';
import { migration as m0006 } from './0006_sign_in_failures.js';
import { migration as m0007 } from './0007_idempotency_claim_owner.js';
import { migration as m0008 } from './0008_generation_counts.js';
import { migration as m0009 } from './0009_creation_views.js';
import { migration as m0010 } from './0010_usage.js';
import { migration as m0011 } from './0011_history_version.js';
import { migration as m0012 } from './0012_sign_in_attempts.js';
import { migration as m0014 } from './0014_session_controls.js';
import { migration as m0016 } from './0016_idempotency_usage.js';
import { migration as m0017 } from './0017_upload_usage.js';
import { migration as m0018 } from './0018_prompt_search.js';
import { migration as m0019 } from './0019_webhook_secret_rotation.js';
import { migration as m0021 } from './0021_generation_aspect_source.js';
import { migration as m0022 } from './0022_upstream_capacity.js';
import { migration as m0023 } from './0023_task_finished_outbox.js';
import { migration as m0024 } from './0024_assets_task.js';
import { migration as m0025 } from './0025_task_partials_usage.js';
import { migration as m0026 } from './0026_generation_mask.js';
import { migration as m0027 } from './0027_asset_original_name.js';
import { migration as m0028 } from './0028_api_keys.js';
import { migration as m0030 } from './0030_costs_budgets.js';
import { migration as m0031 } from './0031_key_budgets.js';
import { migration as m0032 } from './0032_curation.js';
import { migration as m0034 } from './0034_prompt_presets.js';
import { migration as m0035 } from './0035_oauth.js';
import { migration as m0036 } from './0036_password_change_required.js';
import { migration as m0037 } from './0037_removed_works.js';
import { migration as m0038 } from './0038_oauth_hardening.js';
import { migration as m0039 } from './0039_oauth_seen_redirects.js';
import { migration as m0040 } from './0040_provider_keys.js';
import { migration as m0042 } from './0042_smart_collections.js';
import { migration as m0043 } from './0043_pool_learning.js';
import { migration as m0044 } from './0044_tasks_due_by_account.js';
import { migration as m0058 } from './0058_generation_quality.js';
import { migration as m0059 } from './0059_quote_caps.js';
import { migration as m0060 } from './0060_upstream_queue_position.js';
import { migration as m0061 } from './0061_usage_absorbed.js';
import { migration as m0062 } from './0062_task_log.js';
import { migration as m0063 } from './0063_audit_events.js';
import { migration as m0064 } from './0064_catalog_versions.js';
import { migration as m0065 } from './0065_policy_versions.js';
import { migration as m0066 } from './0066_alerts.js';
import { migration as m0068 } from './0068_task_log_model.js';
import { migration as m0069 } from './0069_lineage.js';
import { migration as m0070 } from './0070_responses.js';
import { migration as m0071 } from './0071_task_turns.js';
import { migration as m0072 } from './0072_actions_and_seeds.js';
import { migration as m0073 } from './0073_spend_confirmation.js';
import { migration as m0074 } from './0074_blob_purges.js';
import { migration as m0075 } from './0075_account_retention.js';
import { migration as m0076 } from './0076_zero_retention.js';
import { migration as m0077 } from './0077_task_traces.js';
import { migration as m0078 } from './0078_account_erase.js';
import { migration as m0079 } from './0079_calls_in_flight.js';

/**
 * Schema migrations, in order: one file each, named `NNNN_what.ts`, written with portable types so
 * PostgreSQL can run them too. A new migration is a new file listed here, never an edit of an old one.
 */
export const migrations: Record<string, Migration> = {
  '0001_core': m0001,
  '0002_web': m0002,
  '0003_idempotency': m0003,
  '0004_webhooks': m0004,
  '0005_task_reconcile': m0005,
  '0006_sign_in_failures': m0006,
  '0007_idempotency_claim_owner': m0007,
  '0008_generation_counts': m0008,
  '0009_creation_views': m0009,
  '0010_usage': m0010,
  '0011_history_version': m0011,
  '0012_sign_in_attempts': m0012,
  '0014_session_controls': m0014,
  '0016_idempotency_usage': m0016,
  '0017_upload_usage': m0017,
  '0018_prompt_search': m0018,
  '0019_webhook_secret_rotation': m0019,
  '0021_generation_aspect_source': m0021,
  '0022_upstream_capacity': m0022,
  '0023_task_finished_outbox': m0023,
  '0024_assets_task': m0024,
  '0025_task_partials_usage': m0025,
  '0026_generation_mask': m0026,
  '0027_asset_original_name': m0027,
  '0028_api_keys': m0028,
  '0030_costs_budgets': m0030,
  '0031_key_budgets': m0031,
  '0032_curation': m0032,
  '0034_prompt_presets': m0034,
  '0035_oauth': m0035,
  '0036_password_change_required': m0036,
  '0037_removed_works': m0037,
  '0038_oauth_hardening': m0038,
  '0039_oauth_seen_redirects': m0039,
  '0040_provider_keys': m0040,
  '0042_smart_collections': m0042,
  '0043_pool_learning': m0043,
  '0044_tasks_due_by_account': m0044,
  '0058_generation_quality': m0058,
  '0059_quote_caps': m0059,
  '0060_upstream_queue_position': m0060,
  '0061_usage_absorbed': m0061,
  '0062_task_log': m0062,
  '0063_audit_events': m0063,
  '0064_catalog_versions': m0064,
  '0065_policy_versions': m0065,
  '0066_alerts': m0066,
  '0068_task_log_model': m0068,
  '0069_lineage': m0069,
  '0070_responses': m0070,
  '0071_task_turns': m0071,
  '0072_actions_and_seeds': m0072,
  '0073_spend_confirmation': m0073,
  '0074_blob_purges': m0074,
  '0075_account_retention': m0075,
  '0076_zero_retention': m0076,
  '0077_task_traces': m0077,
  '0078_account_erase': m0078,
  '0079_calls_in_flight': m0079,
};
