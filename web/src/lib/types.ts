/** Wire types of the endpoints the website calls (/api/v1 and /web/api). */

export type TaskStatus = 'queued' | 'in_progress' | 'completed' | 'failed';
export type Mode = 'text' | 'edit' | 'fusion';
export type ImageSize = '1K' | '2K' | '4K';

export interface TaskRecord {
  task_id: string;
  status: TaskStatus;
  progress: number;
  imageUrl?: string;
  error?: string;
  width?: number;
  height?: number;
  contentType?: string;
  bytes?: number;
}

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

export interface UploadResult {
  url: string;
  filename: string;
  content_type: string;
  bytes: number;
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
