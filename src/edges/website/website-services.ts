import type { Readable } from 'node:stream';
import type { Clock } from '../../base/runtime/clock.js';
import type {
  AccountsService,
  OAuthGrants,
  SpendConfirmations,
  UpstreamAccess,
} from '../../capabilities/accounts/index.js';
import type { Curation } from '../../capabilities/curation/index.js';
import type { PartialFrameReads, TasksService } from '../../capabilities/tasks/index.js';
import type { UsageService } from '../../capabilities/usage/index.js';
import type { Db } from '../../infra/store/database.js';
import type { ZipDownloads } from '../../use-cases/downloads/index.js';
import type { GenerationsService } from '../../use-cases/generations/index.js';
import type { LibraryReads, MarkedWorks } from '../../use-cases/read-models/index.js';

/**
 * What the website uses of the core: capability services, and the database only for its own
 * tables (sessions, sign-in failures). Everything else of the core it never sees.
 */
export interface WebsiteServices {
  /** The service's public base URL: the origin state-changing requests must come from. */
  publicBaseUrl: string;
  db: Db;
  clock: Clock;
  accounts: Pick<
    AccountsService,
    | 'findById'
    | 'verifyLogin'
    | 'apiKeyHint'
    | 'rotateApiKey'
    | 'listKeys'
    | 'createKey'
    | 'revokeKey'
    | 'setKeyRetention'
    | 'setUpstreamKey'
    | 'setPassword'
    | 'confirmPassword'
    | 'sessionStanding'
  >;
  upstreamAccess: Pick<UpstreamAccess, 'hasKey' | 'keyedProviders' | 'overview' | 'requireKeyedProvider'>;
  /** When MCP tools ask the person before spending (the account page's setting). */
  spendConfirmations: SpendConfirmations;
  generations: Pick<GenerationsService, 'generate' | 'remove' | 'removedSince' | 'act'>;
  creations: Pick<
    MarkedWorks,
    'savedWorks' | 'savedWork' | 'isPurged' | 'recentPrompts' | 'durations' | 'versions'
  >;
  library: Pick<LibraryReads, 'libraryPage'>;
  /** Deleting an upload (src/capabilities/assets' repository; NotFound, or Conflict for a result). */
  assets: { deleteUpload(accountId: string, assetId: string): Promise<void> };
  tasks: Pick<TasksService, 'listPendingForAccount'>;
  /** The partial frames of the account's rendering tasks (Create's live previews). */
  previews: PartialFrameReads;
  usage: Pick<UsageService, 'report'>;
  /** Stars and collections of the account's works (issue 30). */
  curation: Curation;
  /** A selection's files as a streamed ZIP. */
  zipDownloads: Pick<ZipDownloads, 'open'>;
  /** The account page's export and erase of the signed-in account, and their audit records. */
  accountData: {
    export(accountId: string, now: number): Promise<{ name: string; stream: Readable }>;
    erase(accountId: string): Promise<'erased' | 'pending' | 'absent'>;
    audit(
      actor: { label: string; accountId: string | null; requestId: string },
      action: 'account.export' | 'account.erase',
      accountId: string,
    ): Promise<void>;
  };
  /** Sign-in for hosted MCP clients (consent, the account's grants); absent where it is not offered. */
  oauth?: OAuthGrants | undefined;
}
