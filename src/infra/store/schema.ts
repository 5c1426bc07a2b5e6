import type { Generated } from 'kysely';
import type { AccountTables } from './schema/accounts.js';
import type { AlertTables } from './schema/alerts.js';
import type { AssetTables } from './schema/assets.js';
import type { AuditTables } from './schema/audit.js';
import type { CapacityTables } from './schema/capacity.js';
import type { CatalogTables } from './schema/catalog.js';
import type { CurationTables } from './schema/curation.js';
import type { GenerationTables } from './schema/generations.js';
import type { IdempotencyTables } from './schema/idempotency.js';
import type { LifecycleTables } from './schema/lifecycle.js';
import type { OAuthTables } from './schema/oauth.js';
import type { ProviderKeyTables } from './schema/provider-keys.js';
import type { ResponseTables } from './schema/responses.js';
import type { TaskTables } from './schema/tasks.js';
import type { UsageTables } from './schema/usage.js';
import type { WebhookTables } from './schema/webhooks.js';
import type { WebsiteTables } from './schema/website.js';

/**
 * Table shapes. Timestamps are integer milliseconds since the epoch, booleans are integers (0/1) and
 * JSON is text, so the same queries run on SQLite and PostgreSQL. A text column that only ever holds
 * one of a closed set of values has that union as its type (its writers are checked against it).
 *
 * One file per table group, `schema/<group>.ts`, each saying which part of the code owns its tables;
 * code imports a table's shape from its group's file. This file gathers the groups into the one
 * `Database` type Kysely is built over.
 */
export interface Database
  extends AccountTables,
    GenerationTables,
    TaskTables,
    UsageTables,
    AssetTables,
    IdempotencyTables,
    WebhookTables,
    WebsiteTables,
    CapacityTables,
    CurationTables,
    OAuthTables,
    ProviderKeyTables,
    AuditTables,
    AlertTables,
    CatalogTables,
    ResponseTables,
    LifecycleTables {
  /** Kysely's own bookkeeping tables are created by the migrator. */
  _placeholder?: { id: Generated<number> };
}
