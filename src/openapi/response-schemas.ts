import { z } from 'zod';
import { TIERS } from '../accounts/accounts-repository.js';
import { TASK_STATUSES } from '../tasks/task-record.js';

/**
 * The response shapes of /api/v1, as schemas: the OpenAPI document is generated from them, and the
 * HTTP tests check real responses against them, so the document cannot drift from the server.
 */
export const taskRecordSchema = z
  .object({
    task_id: z.string(),
    status: z
      .enum(TASK_STATUSES)
      .describe(
        'queued → in_progress → completed, or any unfinished state → failed; final states never change',
      ),
    progress: z
      .number()
      .int()
      .min(0)
      .max(100)
      .describe('Percent; never decreases; 100 exactly when completed'),
    imageUrl: z.string().optional().describe("Atelier's stable URL of the result; only when completed"),
    error: z
      .string()
      .optional()
      .describe('Failure message ("Canceled" after a cancel, "Task not found" in a batch); only when failed'),
    width: z.number().int().optional().describe('Result width in pixels; only when completed'),
    height: z.number().int().optional().describe('Result height in pixels; only when completed'),
    contentType: z.string().optional().describe('Result media type; only when completed'),
    bytes: z.number().int().optional().describe('Result size in bytes; only when completed'),
  })
  .describe('Task status record');

export const tasksResponseSchema = z
  .object({ tasks: z.array(taskRecordSchema).describe('One record per id, strictly in input order') })
  .describe('Batch of task records');

export const generateResponseSchema = z
  .object({
    task_ids: z.array(z.string()).describe('One task per requested image'),
    email: z.string().describe("The account's e-mail address"),
  })
  .describe('Generate response');

export const uploadResultSchema = z
  .object({
    url: z.string().describe('Stable re-hosted URL; usable in imageUrls'),
    filename: z.string().describe("Atelier's file name (content hash + extension)"),
    content_type: z.string(),
    bytes: z.number().int(),
  })
  .describe('Upload result');

export const historyItemSchema = z
  .object({
    id: z.string(),
    prompt: z.string(),
    model: z.string(),
    mode: z.string(),
    aspect: z.string(),
    imageSize: z.string(),
    imageCount: z.number().int(),
    images: z.array(z.string()).describe('URLs of the tasks completed so far, in task order'),
    refs: z.array(z.string()).describe("The request's imageUrls"),
    createdAt: z.number().int().describe('Milliseconds since the Unix epoch'),
    removed: z.boolean().optional().describe('Present (true) when the owner deleted it from saved works'),
  })
  .describe('History item');

const pageFields = {
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
  total_pages: z.number().int().describe('ceil(total / limit); 0 when total is 0'),
};

export const historyPageSchema = z
  .object({ items: z.array(historyItemSchema).describe('Newest first'), ...pageFields })
  .describe('History page');

export const accountStatusSchema = z
  .object({
    email: z.string(),
    tier: z.enum(TIERS).describe('Plan tier; agents may use it as a cost hint'),
    has_key: z.boolean().describe('Whether the account can reach the upstream of the default model'),
  })
  .describe('Account status');

export const assetSchema = z
  .object({
    id: z.string(),
    kind: z.enum(['upload', 'result']),
    url: z.string(),
    contentType: z.string(),
    bytes: z.number().int(),
    width: z.number().int(),
    height: z.number().int(),
    sha256: z.string(),
    generationId: z.string().nullable(),
    taskId: z.string().nullable(),
    createdAt: z.number().int(),
  })
  .describe('Asset');

export const assetsPageSchema = z
  .object({ items: z.array(assetSchema).describe('Newest first'), ...pageFields })
  .describe('Assets page');

export const modelsSchema = z
  .object({
    default_model: z.string(),
    models: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        modes: z.array(z.enum(['text', 'edit', 'fusion'])),
        aspects: z.array(z.string()),
        sizes: z.array(z.enum(['1K', '2K', '4K'])),
        maxCount: z.number().int(),
        maxReferences: z.number().int(),
      }),
    ),
  })
  .describe('Model catalog');

export const errorBodySchema = z
  .object({
    error: z.object({
      type: z.string().describe('Machine-readable error type, e.g. invalid_request'),
      message: z.string().describe('Human-readable explanation'),
    }),
  })
  .describe('Error');

export const webhookSecretSchema = z
  .object({ secret: z.string().describe('whsec_… — the HMAC key of the Standard Webhooks signatures') })
  .describe('Webhook signing secret');

export const webhookDeliverySchema = z
  .object({
    id: z.string().describe('msg_… — also the webhook-id header, the same on every attempt'),
    task_id: z.string(),
    url: z.string(),
    type: z.enum(['task.completed', 'task.failed']),
    state: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.number().int(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    next_attempt_at: z.number().int().nullable(),
    created_at: z.number().int(),
    delivered_at: z.number().int().nullable(),
  })
  .describe('Webhook delivery');

export const webhookDeliveriesPageSchema = z
  .object({ items: z.array(webhookDeliverySchema).describe('Newest first'), ...pageFields })
  .describe('Webhook deliveries page');
