import type { Clock } from '../../base/runtime/clock.js';
import type { AccountsService } from '../../capabilities/accounts/accounts-service.js';
import type { OAuthGrants } from '../../capabilities/accounts/oauth-grants.js';
import type { UpstreamAccess } from '../../capabilities/accounts/upstream-access.js';
import type { Curation } from '../../capabilities/curation/curation-service.js';
import type { PartialFrameReads } from '../../capabilities/tasks/partial-frames.js';
import type { TasksService } from '../../capabilities/tasks/tasks-service.js';
import type { UsageService } from '../../capabilities/usage/usage-service.js';
import type { Db } from '../../infra/store/database.js';
import type { ZipDownloads } from '../../use-cases/downloads/zip-download.js';
import type { GenerationsService } from '../../use-cases/generations/generations-service.js';
import type { LibraryReads } from '../../use-cases/read-models/library.js';
import type { MarkedWorks } from '../../use-cases/read-models/marked-works.js';

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
    | 'setUpstreamKey'
    | 'setPassword'
    | 'confirmPassword'
    | 'sessionStanding'
  >;
  upstreamAccess: Pick<UpstreamAccess, 'hasKey' | 'overview' | 'requireKeyedProvider'>;
  generations: Pick<GenerationsService, 'generate' | 'remove' | 'removedSince'>;
  creations: Pick<MarkedWorks, 'savedWorks' | 'savedWork' | 'recentPrompts' | 'durations'>;
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
  /** Sign-in for hosted MCP clients (consent, the account's grants); absent where it is not offered. */
  oauth?: OAuthGrants | undefined;
}
