import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  type AtelierClient,
  GENERATION_MODES,
  type GenerateRequest,
  type GenerateResponse,
  generateResponseSchema,
  IMAGE_QUALITIES,
  IMAGE_SIZES,
  isFinalStatus,
  MAX_SEED,
  type TaskRecord,
  taskRecordSchema,
} from '../../client/atelier-client.js';
import type { SpendPrice } from '../spend-confirmation.js';
import {
  MIN_POLL_INTERVAL_MS,
  overallProgress,
  type PollingClock,
  systemClock,
  waitForTasks,
} from '../task-polling.js';
import type { Thumbnailer } from '../thumbnails.js';
import { errorResult, pollingHint, structuredResult, taskImageBlocks } from '../tool-results.js';
import { generatePrice } from './spend-prices.js';

export const MAX_WAIT_SECONDS = 120;

export const generateInputSchema = {
  prompt: z
    .string()
    .min(1)
    .describe('What to draw, or in edit mode what to change. Must not be empty (at most 8000 characters).'),
  model: z
    .string()
    .optional()
    .describe(
      "Model id; omitted: the deployment's default_model. list_models lists the models this deployment " +
        'offers with their modes, aspects, sizes, qualities, prices per image and lifecycle; an invalid_request ' +
        'error names the ids that exist. get_account_status returns the plan tier (trial < starter < standard ' +
        '< pro) as a hint of whether a high-cost model is affordable.',
    ),
  mode: z
    .enum(GENERATION_MODES)
    .optional()
    .describe(
      '"text" (default): text-to-image, imageUrls must be empty. "edit": change one image, imageUrls must hold ' +
        'exactly one URL. "fusion": blend 2 or more images; only models whose modes list fusion accept it ' +
        '(list_models), others refuse it with invalid_request.',
    ),
  aspect: z
    .string()
    .optional()
    .describe(
      'Width:height ratio, default "1:1" (an edit or fusion without it keeps the reference image\'s shape). ' +
        "One of the model's aspects in list_models (an invalid_request error lists what it accepts).",
    ),
  quality: z
    .enum(IMAGE_QUALITIES)
    .optional()
    .describe(
      'Quality tier, only on models that list qualities (list_models); higher tiers cost more. Default: ' +
        "the model's defaultQuality.",
    ),
  quote_id: z
    .string()
    .optional()
    .describe(
      'A quote_id from quote_image for these same arguments (on this account, within 15 minutes): the ' +
        "images are then never charged more than the quote's max_cost_micros. Refused if the arguments differ.",
    ),
  imageSize: z
    .enum(IMAGE_SIZES)
    .optional()
    .describe(
      'Output resolution: "1K" (about 1 megapixel), "2K" (about 4 MP, the default) or "4K" (about 16 MP).',
    ),
  count: z
    .number()
    .int()
    .min(1)
    // Atelier's catalog format caps a model at 16 images; the model's own cap is the server's to enforce.
    .max(16)
    .optional()
    .describe(
      'Number of images, default 1, capped per model (its maxCount in list_models). Each image is one task.',
    ),
  seed: z
    .number()
    .int()
    .min(0)
    .max(MAX_SEED)
    .optional()
    .describe(
      `Seed of the first image, 0-${MAX_SEED} (image i of the call gets seed + i): the same seed, model and ` +
        'settings give the same picture again where the model takes seeds (its seeds in list_models is ' +
        'true); a model without seeds refuses it with invalid_request. Omitted: Atelier draws one, and the task ' +
        'records show the seed each image used.',
    ),
  imageUrls: z
    .array(z.string())
    .optional()
    .describe(
      'Reference image URLs: none for text, exactly one for edit, 2 or more for fusion. For a local file or a ' +
        'third-party link, call upload_reference_image first and pass the url it returns.',
    ),
  wait: z
    .number()
    .int()
    .min(0)
    .max(MAX_WAIT_SECONDS)
    .optional()
    .describe(
      `Seconds to wait for the images within this call (0-${MAX_WAIT_SECONDS}, default 0). With wait > 0 the tool ` +
        'polls every 2 s and returns the finished tasks with image URLs and thumbnails; unfinished tasks after the ' +
        'wait are returned as they are. With 0 it returns the task ids at once; then call batch_get_tasks (or ' +
        'get_task) every 2-5 s. Many MCP clients end a tool call after 60 s, so prefer wait of 50 or less.',
    ),
};

export const generateOutputSchema = generateResponseSchema.extend({
  tasks: z
    .array(taskRecordSchema)
    .optional()
    .describe('Latest record of each task, in task_ids order; present when wait > 0 and a poll succeeded'),
  finished: z.boolean().describe('True when every task is completed or failed'),
  hint: z.string().describe('What to do next'),
});

export interface GenerateImageOptions {
  thumbnailer: Thumbnailer;
  clock?: PollingClock;
  /** Between polls while waiting; clamped to the spec's 2-5 s. */
  pollIntervalMs?: number;
}

export type GenerateArgs = z.infer<z.ZodObject<typeof generateInputSchema>>;
type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export const GENERATE_IMAGE_TOOL = {
  title: 'Generate images',
  description:
    'Create images with Atelier (text-to-image or edit of one reference image). Returns one task id per image ' +
    'at once; set wait (seconds) to receive the finished images in the same call. Finished images come back ' +
    'as stable URLs (resource links) plus small thumbnails. Each image spends upstream credit: avoid needless ' +
    'large counts, 4K or repeated calls, and check get_account_status when unsure. Clients that speak MCP ' +
    'tasks may call it task-augmented: they get a task at once and poll it.',
  inputSchema: generateInputSchema,
  outputSchema: generateOutputSchema,
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
};

/** The API request of a call: omitted fields stay omitted so the deployment's own defaults apply. */
export function generateRequestOf(args: GenerateArgs): GenerateRequest {
  const { wait: _wait, ...fields } = args;
  return withoutUndefined(fields);
}

/** A submission that is a POST /api/v1/generate of `request`. */
export function generateSubmission(request: GenerateRequest, wait: number, note?: string): Submission {
  return {
    send: (client, signal) => client.generate(request, { signal }),
    price: (client, signal) => generatePrice(client, request, signal),
    wait,
    ...(note !== undefined ? { note } : {}),
  };
}

/** What a generation tool submits: the API call that makes the tasks, and the seconds to wait for them. */
export interface Submission {
  /** Sends the call (POST /api/v1/generate, or an action on a work); answers the new task ids. */
  send(client: AtelierClient, signal?: AbortSignal): Promise<GenerateResponse>;
  /** The most the call can cost, for the person's confirmation (spend-confirmation.ts). */
  price(client: AtelierClient, signal: AbortSignal): Promise<SpendPrice>;
  wait: number;
  /** Said after the result's hint (e.g. what a refinement's lineage is). */
  note?: string;
}

/**
 * A generation tool (`generate_image`, `refine_image`) called without task augmentation: submit, and
 * optionally wait (polling, with progress notifications) for the tasks.
 */
export async function generateAndWait(
  client: AtelierClient,
  { send, wait, note }: Submission,
  extra: ToolExtra,
  options: GenerateImageOptions & { explainError?: (error: unknown) => unknown },
): Promise<CallToolResult> {
  const clock = options.clock ?? systemClock();
  const pollIntervalMs = options.pollIntervalMs ?? MIN_POLL_INTERVAL_MS;
  let submitted: GenerateResponse;
  try {
    submitted = await send(client, extra.signal);
  } catch (error) {
    return errorResult(options.explainError ? options.explainError(error) : error);
  }
  const ids = submitted.task_ids;
  const batchHint = batchHintOf(ids);
  const noted = (hint: string) => (note ? `${hint} ${note}` : hint);
  if (wait === 0 || ids.length === 0) {
    return structuredResult({
      ...submitted,
      finished: false,
      hint: noted(`Submitted ${ids.length} task(s); ${batchHint}`),
    });
  }

  // From here on the tasks exist: whatever happens while waiting, the result must carry their ids
  // rather than an error, or the agent would submit (and pay for) them again.
  const progressToken = extra._meta?.progressToken;
  let lastProgress = -1;
  const reportProgress = async (progress: number, message: string) => {
    // MCP requires progress to increase with every notification.
    if (progressToken === undefined || progress <= lastProgress) return;
    lastProgress = progress;
    await extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress, total: 100, message },
      })
      .catch(() => {
        // A lost notification must not fail the generation.
      });
  };
  await reportProgress(0, `Submitted ${ids.length} task(s)`);

  const outcome = await waitForTasks(client, ids, {
    waitMs: wait * 1000,
    intervalMs: pollIntervalMs,
    clock,
    signal: extra.signal,
    onPoll: (tasks) => reportProgress(overallProgress(tasks), describeProgress(tasks)),
  });

  const tasks = outcome.tasks;
  if (!tasks) {
    const reason = outcome.lastError instanceof Error ? outcome.lastError.message : 'no answer';
    return structuredResult({
      ...submitted,
      finished: false,
      hint: noted(`Submitted ${ids.length} task(s), but polling failed (${reason}); ${batchHint}`),
    });
  }
  const hint = outcome.finished
    ? summarize(tasks)
    : `${summarize(tasks)} Still running after ${wait} s: ${pollingHint(tasks) ?? batchHint}`;
  return generationResult(submitted, tasks, outcome.finished, noted(hint), options.thumbnailer, extra.signal);
}

/** The result of a generation whose records were read: structured records, links and thumbnails. */
export async function generationResult(
  submitted: GenerateResponse,
  tasks: TaskRecord[],
  finished: boolean,
  hint: string,
  thumbnailer: Thumbnailer,
  signal?: AbortSignal,
): Promise<CallToolResult> {
  const images = await taskImageBlocks(tasks, thumbnailer, signal);
  return structuredResult({ ...submitted, tasks, finished, hint }, images);
}

export function batchHintOf(ids: readonly string[]): string {
  return `call batch_get_tasks with task_ids ${JSON.stringify(ids)} every 2-5 seconds until each is completed or failed.`;
}

export function summarize(tasks: readonly TaskRecord[]): string {
  const completed = tasks.filter((task) => task.status === 'completed').length;
  const failed = tasks.filter((task) => task.status === 'failed');
  let text = `${completed} of ${tasks.length} task(s) completed`;
  if (failed.length > 0) {
    const reasons = [...new Set(failed.map((task) => task.error ?? 'unknown error'))].join('; ');
    text += `, ${failed.length} failed (${reasons})`;
  }
  return `${text}.`;
}

export function describeProgress(tasks: readonly TaskRecord[]): string {
  const done = tasks.filter((task) => isFinalStatus(task.status)).length;
  return `${done} of ${tasks.length} task(s) finished`;
}

export function withoutUndefined<T extends object>(fields: T): T {
  // Omitted fields must stay omitted so the deployment's own defaults apply.
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as T;
}
