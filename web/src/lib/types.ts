/**
 * Wire types of the endpoints the website calls. The /api/v1 shapes are the contract's
 * (`src/contract`), the schemas the server's routes declare; imported as types only, so the
 * bundle does not carry Zod. /web/api shapes are the website's own.
 */
import type {
  CatalogModel,
  ImageSize as ContractImageSize,
  GenerationMode,
  Models,
} from '../../../src/contract/catalog';
import type {
  TaskRecord as ContractTaskRecord,
  TaskStatus as ContractTaskStatus,
} from '../../../src/contract/tasks';
import type { UploadResult as ContractUploadResult } from '../../../src/contract/uploads';

export type TaskStatus = ContractTaskStatus;
export type Mode = GenerationMode;
export type ImageSize = ContractImageSize;
/** A task status record, with the result metadata completed records carry. */
export type TaskRecord = ContractTaskRecord;
export type UploadResult = ContractUploadResult;
export type { CatalogModel };
export type Catalog = Models;

/** A task with what was asked for: the creation view's card. */
export interface TaskCard extends TaskRecord {
  generation_id: string;
  source: 'api' | 'web';
  prompt: string;
  model: string;
  mode: string;
  aspect: string;
  imageSize: string;
  index: number;
  count: number;
  createdAt: number;
}

export interface SavedWork {
  id: string;
  source: 'api' | 'web';
  prompt: string;
  model: string;
  mode: string;
  aspect: string;
  imageSize: string;
  imageCount: number;
  refs: string[];
  createdAt: number;
  tasks: TaskRecord[];
}

export interface Paged<T> {
  items: T[];
  total: number;
  page: number;
  limit: number;
  total_pages: number;
}

export interface LibraryAsset {
  id: string;
  kind: 'upload' | 'result';
  url: string;
  contentType: string;
  bytes: number;
  width: number;
  height: number;
  generationId: string | null;
  prompt: string | null;
  createdAt: number;
}

export interface SessionInfo {
  email: string;
  tier: string;
}

export interface AccountInfo {
  email: string;
  tier: string;
  has_key: boolean;
  api_key_hint: string | null;
  base_url: string;
  upstream: {
    default_provider: string;
    key_required: boolean;
    providers: Array<{ name: string; configured: boolean; own_key: boolean; deployment_key: boolean }>;
  };
}
