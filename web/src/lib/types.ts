/**
 * Wire types of the endpoints the website calls. The /api/v1 shapes come from the typed client
 * (`src/client/api-schemas.ts`), the same one the MCP server uses and the OpenAPI contract test
 * checks against the document; /web/api shapes are the website's own.
 */
import type {
  ImageSize as ClientImageSize,
  TaskRecord as ClientTaskRecord,
  TaskStatus as ClientTaskStatus,
  UploadResult as ClientUploadResult,
  GenerationMode,
} from '../../../src/client/api-schemas';

export type TaskStatus = ClientTaskStatus;
export type Mode = GenerationMode;
export type ImageSize = ClientImageSize;

/** A task status record, with the result metadata completed records carry. */
export type TaskRecord = Pick<ClientTaskRecord, 'task_id' | 'status' | 'progress' | 'imageUrl' | 'error'> & {
  width?: number;
  height?: number;
  contentType?: string;
  bytes?: number;
};

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

export interface CatalogModel {
  id: string;
  name: string;
  modes: Mode[];
  aspects: string[];
  sizes: ImageSize[];
  maxCount: number;
  maxReferences: number;
}

export interface Catalog {
  default_model: string;
  models: CatalogModel[];
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

export type UploadResult = Pick<ClientUploadResult, 'url' | 'filename' | 'content_type' | 'bytes'>;

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
