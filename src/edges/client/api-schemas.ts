import { z } from 'zod';
import * as accounts from '../../base/contract/accounts.js';
import type { actionBodySchema } from '../../base/contract/actions.js';
import * as catalog from '../../base/contract/catalog.js';
import type { generateBodySchema } from '../../base/contract/generate-body.js';
import * as generations from '../../base/contract/generations.js';
import * as quotes from '../../base/contract/quotes.js';
import * as tasks from '../../base/contract/tasks.js';
import * as uploads from '../../base/contract/uploads.js';
import * as usage from '../../base/contract/usage.js';

// The /api/v1 wire shapes (spec §2) come from the contract the server's routes declare
// (src/base/contract): one definition gives the client its response validation, its exported
// TypeScript types, and the MCP tools their output schemas. The client reads them loose — a newer
// server may add fields and a client must pass them through rather than break — and unnamed, so
// a tool's output schema is a plain object schema rather than a reference to a named one.

export { type ErrorBody, errorBodySchema } from '../../base/contract/errors.js';
export { GENERATION_MODES, type GenerationMode } from '../../base/domain/generation-modes.js';
export {
  EXPAND_FACTOR_MAX,
  EXPAND_FACTOR_MIN,
  IMAGE_ACTIONS,
  type ImageAction,
  MAX_SEED,
  UPSCALE_FACTORS,
  VARY_STRENGTHS,
  type VaryStrength,
} from '../../base/domain/image-actions.js';
export { IMAGE_QUALITIES, type ImageQuality } from '../../base/domain/image-qualities.js';
export { IMAGE_SIZES, type ImageSize } from '../../base/domain/image-sizes.js';
export { isFinalStatus, TASK_STATUSES, type TaskStatus } from '../../base/domain/task-status.js';
export { TIERS as ACCOUNT_TIERS, type Tier as AccountTier } from '../../base/domain/tiers.js';

/** The contract's object schema, loose and without its name. */
const loose = <Shape extends z.ZodRawShape>(schema: z.ZodObject<Shape>) => z.looseObject(schema.shape);

/** A listing field (`tasks`, `items`) of the contract's, with the client's item schema. */
const listOf = <T extends z.ZodType>(field: z.ZodArray, item: T) =>
  z.array(item).describe(field.description ?? '');

export const generateResponseSchema = loose(generations.generateResponseSchema);
export const taskRecordSchema = loose(tasks.taskRecordSchema);
export const tasksResponseSchema = z.looseObject({
  tasks: listOf(tasks.taskBatchSchema.shape.tasks, taskRecordSchema),
});
export const uploadResultSchema = loose(uploads.uploadResultSchema);
export const historyItemSchema = loose(generations.historyItemSchema);
export const historyPageSchema = z.looseObject({
  ...generations.historyPageSchema.shape,
  items: listOf(generations.historyPageSchema.shape.items, historyItemSchema),
});
/** GET /api/v1/history/{id}/versions: a work's lineage, oldest first (an extra route). */
export const workVersionsSchema = z.looseObject({
  versions: z
    .array(historyItemSchema)
    .describe('The work, its ancestors and every refinement of them, oldest first (at most 100)'),
});
export const accountStatusSchema = loose(accounts.accountStatusSchema);
/** Spend confirmation when the account set none (or a server too old to say). */
export const SPEND_CONFIRMATION_DEFAULTS = accounts.SPEND_CONFIRMATION_DEFAULTS;
export const usageReportSchema = loose(usage.usageReportSchema);
export const modelListSchema = z.looseObject({
  ...catalog.modelsSchema.shape,
  data: listOf(catalog.modelsSchema.shape.data, loose(catalog.catalogModelSchema)),
});

export const quoteSchema = loose(quotes.quoteSchema);

export type GenerateResponse = z.infer<typeof generateResponseSchema>;
export type Quote = z.infer<typeof quoteSchema>;
export type TaskRecord = z.infer<typeof taskRecordSchema>;
export type TasksResponse = z.infer<typeof tasksResponseSchema>;
export type UploadResult = z.infer<typeof uploadResultSchema>;
export type HistoryItem = z.infer<typeof historyItemSchema>;
export type HistoryPage = z.infer<typeof historyPageSchema>;
export type WorkVersions = z.infer<typeof workVersionsSchema>;
export type AccountStatus = z.infer<typeof accountStatusSchema>;
export type UsageReport = z.infer<typeof usageReportSchema>;
export type ModelList = z.infer<typeof modelListSchema>;

/** Body of POST /api/v1/generate (spec 2.1), as a caller writes it. Omitted fields take the server's defaults. */
export type GenerateRequest = z.input<typeof generateBodySchema>;

/**
 * Body of POST /api/v1/generations/{id}/actions (issue 45): an action on a finished image, answered
 * like generate (one task id per image). Omitted fields take the server's defaults.
 */
export type ActionRequest = z.input<typeof actionBodySchema>;
/** One configured action of GET /api/v1/models (its `actions`). */
export type ActionRoute = NonNullable<ModelList['actions']>[number];
