import type { Readable } from 'node:stream';
import type { ProviderKeyWire } from '../../base/contract/admin-provider-keys.js';
import type { Clock } from '../../base/runtime/clock.js';
import type {
  AccountDirectory,
  AccountsService,
  ProviderKeyStore,
} from '../../capabilities/accounts/index.js';
import type { AlertsService } from '../../capabilities/alerts/index.js';
import type { AuditLog } from '../../capabilities/audit/index.js';
import type { CatalogVersions } from '../../capabilities/catalog/index.js';
import type { ProviderRegistry } from '../../capabilities/providers/index.js';
import type { PoolState, TaskQueue } from '../../capabilities/tasks/index.js';
import type {
  AccountBudget,
  Budgets,
  KeyBudget,
  LivePolicies,
  UsageService,
} from '../../capabilities/usage/index.js';
import type { AccountRetentionStore } from '../../use-cases/lifecycle/index.js';
import type { TaskLog } from '../../use-cases/read-models/index.js';
import type { AccountResolver } from '../http/authentication.js';
import type { ErrorType } from '../http/errors.js';
import { AUTH_ERRORS } from '../http/route-responses.js';

/** What the operator console's API needs from the core; the composition root wires it. */
export interface AdminDeps {
  /** Who is calling: an API key (Bearer), or the website's session (with its same-origin check). */
  resolvers: AccountResolver[];
  /** Whether the account may use the console, read from the store at each request. */
  isOperator(accountId: string): Promise<boolean>;
  accounts: AccountsService;
  directory: AccountDirectory;
  usage: UsageService;
  /** The tier policies in force on this node, their history, and their edits (new versions in the store). */
  policies: Pick<LivePolicies, 'current' | 'replace' | 'setTier' | 'history'>;
  /** Spend budgets: set and read an account's or a key's; `list` and `listKeys` every one set. */
  budgets: Pick<Budgets, 'get' | 'getKey' | 'set' | 'setKey' | 'status'> & {
    list(): Promise<AccountBudget[]>;
    /** Keys with a budget, of one account or of all. */
    listKeys(accountId?: string): Promise<KeyBudget[]>;
  };
  providers: ProviderRegistry;
  capacity: { states(): Promise<PoolState[]> };
  /** The deployment's unfinished tasks per provider (src/capabilities/tasks/task-counts.ts). */
  unfinishedTasks(): Promise<Array<{ provider: string; queued: number; inProgress: number }>>;
  /** The queue per route and pool, and the operator's cancel (src/capabilities/tasks/task-queue.ts). */
  queue: Pick<TaskQueue, 'view' | 'cancel' | 'error'>;
  /** The deployment's pools of upstream keys: each key's state (never the key), and their store. */
  providerKeys: {
    states(): Promise<ProviderKeyWire[]>;
    store: ProviderKeyStore;
    /** The provider when a key can be set for it; otherwise InvalidInput naming those that can. */
    requireKeyedProvider(provider: string): string;
    /** The providers a key can be set for (the body schema's enum). */
    keyedProviders(): string[];
  };
  /** The task log of every account, and one task's life (src/use-cases/read-models/task-log.ts). */
  taskLog: Pick<TaskLog, 'page' | 'life'>;
  /** The catalog at run time: the version in force (`catalog`), its history, edits. */
  catalog: Pick<CatalogVersions, 'catalog' | 'edit' | 'history' | 'get'>;
  /** The audit log: each change a route makes is recorded in it; GET /audit reads it. */
  audit: Pick<AuditLog, 'record' | 'list' | 'all'>;
  /** Alert rules, their test message and recent deliveries. */
  alerts: Pick<AlertsService, 'create' | 'list' | 'get' | 'update' | 'remove' | 'test' | 'deliveries'>;
  /** An account's own retention periods (docs/operations.md, Data lifecycle). */
  retention: AccountRetentionStore;
  /** An account's export (a streamed ZIP) and erase (docs/operations.md, Data lifecycle). */
  accountData: {
    export(accountId: string, now: number): Promise<{ name: string; stream: Readable }>;
    erase(accountId: string): Promise<'erased' | 'pending' | 'absent'>;
  };
  clock: Clock;
}

/** What a non-operator is told (403 `forbidden`). */
export const NOT_AN_OPERATOR = 'This API is for operators; this account is not one';

/** The errors every admin route may answer: not authenticated, or not an operator (403 `forbidden`). */
export const ADMIN_AUTH_ERRORS = [...AUTH_ERRORS, 'forbidden'] as const satisfies readonly ErrorType[];

/** Besides those, a route that changes something refuses a read-only key (403 `insufficient_scope`). */
export const ADMIN_WRITE_ERRORS = [
  ...ADMIN_AUTH_ERRORS,
  'insufficient_scope',
] as const satisfies readonly ErrorType[];
