import { z } from 'zod';

// The /api/v1 wire shapes (spec §2), as Zod schemas so that one definition gives the client its
// response validation, its exported TypeScript types, and the MCP tools their output schemas.
// Objects are loose: a deployment may add fields (e.g. width/height on completed tasks) and a
// client must pass them through rather than break.

export const GENERATION_MODES = ['text', 'edit', 'fusion'] as const;
export const IMAGE_SIZES = ['1K', '2K', '4K'] as const;
export const TASK_STATUSES = ['queued', 'in_progress', 'completed', 'failed'] as const;
export const ACCOUNT_TIERS = ['trial', 'starter', 'standard', 'pro'] as const;

export type GenerationMode = (typeof GENERATION_MODES)[number];
export type ImageSize = (typeof IMAGE_SIZES)[number];
export type TaskStatus = (typeof TASK_STATUSES)[number];
export type AccountTier = (typeof ACCOUNT_TIERS)[number];

/** Body of POST /api/v1/generate (spec 2.1). Omitted fields take the server's defaults. */
export interface GenerateRequest {
  prompt: string;
  model?: string;
  mode?: GenerationMode;
  aspect?: string;
  imageSize?: ImageSize;
  count?: number;
  imageUrls?: string[];
}

export const generateResponseSchema = z.looseObject({
  task_ids: z.array(z.string()).describe('One task per requested image, in order'),
  email: z.string().describe('E-mail of the account that owns the API key'),
});

export const taskRecordSchema = z.looseObject({
  task_id: z.string(),
  status: z.enum(TASK_STATUSES).describe('completed and failed are final; queued and in_progress are not'),
  progress: z.number().describe('Percent, 0-100; 100 when completed'),
  imageUrl: z.string().optional().describe('Stable result URL; present when status is completed'),
  error: z.string().optional().describe('Failure message; present when status is failed'),
});

export const tasksResponseSchema = z.looseObject({
  tasks: z.array(taskRecordSchema).describe('One record per requested id, in the order of the request'),
});

export const uploadResultSchema = z.looseObject({
  url: z.string().describe('Stable re-hosted URL; pass it in imageUrls of generate_image'),
  filename: z.string(),
  content_type: z.string(),
  bytes: z.number(),
});

export const historyItemSchema = z.looseObject({
  id: z.string(),
  prompt: z.string(),
  model: z.string(),
  mode: z.string(),
  aspect: z.string(),
  imageSize: z.string(),
  imageCount: z.number(),
  images: z.array(z.string()).describe('URLs of the images completed so far'),
  refs: z.array(z.string()).describe('Reference image URLs of the request'),
  createdAt: z.number().describe('Milliseconds since the Unix epoch'),
});

export const historyPageSchema = z.looseObject({
  items: z.array(historyItemSchema).describe('Most recent first'),
  total: z.number(),
  page: z.number(),
  limit: z.number(),
  total_pages: z.number(),
});

export const accountStatusSchema = z.looseObject({
  email: z.string(),
  tier: z.enum(ACCOUNT_TIERS).describe('Plan tier; a hint of how much high-cost generation is affordable'),
  has_key: z
    .boolean()
    .describe('Whether the account can reach its upstream provider; generate fails without it'),
});

export const errorBodySchema = z.object({
  error: z.object({ type: z.string(), message: z.string() }),
});

export type GenerateResponse = z.infer<typeof generateResponseSchema>;
export type TaskRecord = z.infer<typeof taskRecordSchema>;
export type TasksResponse = z.infer<typeof tasksResponseSchema>;
export type UploadResult = z.infer<typeof uploadResultSchema>;
export type HistoryItem = z.infer<typeof historyItemSchema>;
export type HistoryPage = z.infer<typeof historyPageSchema>;
export type AccountStatus = z.infer<typeof accountStatusSchema>;

/** True for the states a task never leaves. */
export function isFinalStatus(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed';
}
