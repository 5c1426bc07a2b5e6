/**
 * Wire types of the endpoints the website calls. The /api/v1 shapes are the contract's
 * (`src/base/contract`), the schemas the server's routes declare; imported as types only, so the
 * bundle does not carry Zod. /web/api shapes are in `src/base/contract/website/`, one module per
 * page.
 */
import type { CatalogModel, Models } from '../../../src/base/contract/catalog';
import type { TaskRecord as ContractTaskRecord } from '../../../src/base/contract/tasks';
import type { UploadResult as ContractUploadResult } from '../../../src/base/contract/uploads';
import type { GenerationMode } from '../../../src/base/domain/generation-modes';
import type { ImageSize as DomainImageSize } from '../../../src/base/domain/image-sizes';
import type { TaskStatus as DomainTaskStatus } from '../../../src/base/domain/task-status';

export type TaskStatus = DomainTaskStatus;
export type Mode = GenerationMode;
export type ImageSize = DomainImageSize;
/** A task status record, with the result metadata completed records carry. */
export type TaskRecord = ContractTaskRecord;
export type UploadResult = ContractUploadResult;
export type { CatalogModel };
/** The wire answer of GET /api/v1/models (OpenAI's list shape). */
export type ModelList = Models;
/** The website's view of the catalog: the list's `data` as `models`, beside `default_model`. */
export interface Catalog {
  default_model: string;
  models: CatalogModel[];
  /** The actions on a finished image this deployment configures (the model list's `actions`). */
  actions: OfferedAction[];
}

/** One configured action of the model list (issue 45): `reroll` always, the others when routed. */
export type OfferedAction = NonNullable<Models['actions']>[number];

export type { HistoryItem } from '../../../src/base/contract/generations';
export type {
  DeliveryItem as WebhookDelivery,
  WebhookSecretRotated,
} from '../../../src/base/contract/webhooks';
export type { AccountInfo, UsageReport } from '../../../src/base/contract/website/account';
export type {
  Preset,
  PresetSettings,
  RecentPrompts,
  TaskCard,
  TaskEstimates,
} from '../../../src/base/contract/website/create';
export type { LibraryAsset, LibraryPage } from '../../../src/base/contract/website/library';
export type { SessionInfo, SessionState } from '../../../src/base/contract/website/session';
export type { SavedWork, SavedWorksPage } from '../../../src/base/contract/website/works';
