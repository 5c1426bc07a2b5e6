import type { z } from 'zod';
import type { generateBodySchema } from '../contract/generate-body.js';
import type { TaskStatus } from '../contract/tasks.js';

// The /api/v1 wire shapes (spec §2) come from the contract the server's routes declare: one
// definition gives the client its response validation, its exported TypeScript types, and the
// MCP tools their output schemas.

export { ACCOUNT_TIERS, type AccountStatus, type AccountTier, accountStatusSchema } from '../contract/accounts.js';
export { GENERATION_MODES, type GenerationMode, IMAGE_SIZES, type ImageSize } from '../contract/catalog.js';
export { type ErrorBody, errorBodySchema } from '../contract/errors.js';
export {
  type GenerateResponse,
  generateResponseSchema,
  type HistoryItem,
  type HistoryPage,
  historyItemSchema,
  historyPageSchema,
} from '../contract/generations.js';
export {
  TASK_STATUSES,
  type TaskBatch as TasksResponse,
  type TaskRecord,
  type TaskStatus,
  taskBatchSchema as tasksResponseSchema,
  taskRecordSchema,
} from '../contract/tasks.js';
export { type UploadResult, uploadResultSchema } from '../contract/uploads.js';

/** Body of POST /api/v1/generate (spec 2.1), as a caller writes it. Omitted fields take the server's defaults. */
export type GenerateRequest = z.input<typeof generateBodySchema>;

/** True for the states a task never leaves. */
export function isFinalStatus(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed';
}
