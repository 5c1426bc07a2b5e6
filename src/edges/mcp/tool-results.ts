import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  AtelierApiError,
  AtelierConnectionError,
  isFinalStatus,
  type TaskRecord,
} from '../client/atelier-client.js';
import type { Thumbnailer } from './thumbnails.js';

type ContentBlock = CallToolResult['content'][number];

/** A failure detected by the MCP server itself, reported like an API error so agents see one shape. */
export class LocalToolError extends Error {
  readonly type: string;

  constructor(type: string, message: string) {
    super(message);
    this.name = 'LocalToolError';
    this.type = type;
  }
}

/**
 * A successful result: `structuredContent` mirrors the API's JSON and the first text block repeats it
 * serialized (the MCP spec asks for that, for clients that ignore structured content).
 */
export function structuredResult(
  structured: Record<string, unknown>,
  extra: ContentBlock[] = [],
): CallToolResult {
  return {
    structuredContent: structured,
    content: [{ type: 'text', text: JSON.stringify(structured) }, ...extra],
  };
}

// What an agent can do about each error type; worded so it does not retry what retrying cannot fix.
const ERROR_ADVICE: Record<string, string> = {
  invalid_request: 'Correct the arguments named in the message and call again.',
  unauthorized:
    'The MCP server was started without a usable ATELIER_API_KEY; the user must fix its configuration.',
  invalid_api_key:
    'ATELIER_API_KEY in the MCP server configuration is not a valid key; the user must replace it.',
  insufficient_scope:
    'ATELIER_API_KEY is a read-only key: it can poll and read history but not generate or upload; the user must configure a full key.',
  upstream_key_missing:
    'The account has no upstream provider key configured; the user or operator must add one. Retrying will not help.',
  not_found:
    'Check the id: task ids come from the task_ids that generate_image, refine_image or act_on_image returned, generation ids from list_my_generations.',
  payload_too_large: 'Images must be 25 MB or smaller.',
  unsupported_media_type: 'Only png, jpeg, webp, gif and bmp images are accepted.',
  invalid_image: 'The file is not a decodable image, or it has too many pixels.',
  fetch_failed: 'Atelier could not download source_url; it must be a public http(s) URL of an image.',
  upstream_error:
    'The upstream image provider failed; retry once after a few seconds, maybe with another model.',
  internal_error: 'Atelier failed unexpectedly; retry once after a few seconds.',
  service_unavailable: 'Atelier is temporarily unavailable; retry after a few seconds.',
  too_many_requests: 'Slow down: wait a few seconds before the next call.',
  budget_exceeded:
    'A spend budget is used up (the message says which and when it resets, UTC); retrying before then will not help. A cheaper model, a smaller size or fewer images may still fit what is left.',
};

/** A tool error (`isError: true`) carrying the API's type and message, plus advice for the agent. */
export function errorResult(error: unknown, log?: (message: string) => void): CallToolResult {
  let text: string;
  if (error instanceof AtelierApiError) {
    text = `${error.type} (HTTP ${error.status}): ${error.message}`;
    const advice = ERROR_ADVICE[error.type];
    if (advice) text += `\n${advice}`;
  } else if (error instanceof LocalToolError) {
    text = `${error.type}: ${error.message}`;
    const advice = ERROR_ADVICE[error.type];
    if (advice) text += `\n${advice}`;
  } else if (error instanceof AtelierConnectionError) {
    text = `connection_failed: ${error.message}\nCheck that Atelier is running and that ATELIER_BASE_URL points to it.`;
  } else {
    // A bug of ours: say so without internals, and keep the details on stderr for the operator.
    log?.(
      `unexpected error in a tool: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    text = `internal_error: the Atelier MCP server failed unexpectedly (${error instanceof Error ? error.message : String(error)})`;
  }
  return { isError: true, content: [{ type: 'text', text }] };
}

/**
 * Content blocks that show finished images: per completed task a caption, a `resource_link` to its
 * stable URL (media type, size in bytes, name) and a small thumbnail from Atelier's renditions, so
 * multimodal agents can look at what they made without the full image in the result.
 */
export async function taskImageBlocks(
  tasks: readonly TaskRecord[],
  thumbnailer: Thumbnailer,
  signal?: AbortSignal,
): Promise<ContentBlock[]> {
  const seen = new Set<string>();
  const completed = tasks.filter((task): task is TaskRecord & { imageUrl: string } => {
    if (task.status !== 'completed' || typeof task.imageUrl !== 'string' || seen.has(task.task_id))
      return false;
    seen.add(task.task_id);
    return true;
  });
  if (completed.length === 0) return [];
  const outcomes = await thumbnailer.render(
    completed.map((task) => ({
      url: task.imageUrl,
      ...(task.width !== undefined ? { width: task.width } : {}),
      ...(task.height !== undefined ? { height: task.height } : {}),
    })),
    signal,
  );
  const blocks: ContentBlock[] = [];
  completed.forEach((task, i) => {
    const outcome = outcomes[i];
    const size = task.width && task.height ? ` ${task.width}x${task.height}` : '';
    const seed = task.seed === undefined ? '' : ` (seed ${task.seed})`;
    const completedAt = `Task ${task.task_id} completed${seed}`;
    if (outcome?.ok) {
      const { thumbnail } = outcome;
      const shown = thumbnail.height
        ? `${thumbnail.width}x${thumbnail.height}`
        : `${thumbnail.width} px wide`;
      blocks.push({
        type: 'text',
        text: `${completedAt}: ${task.imageUrl} (thumbnail below, ${shown}; use the URL for the full image)`,
      });
      blocks.push(resourceLinkOf(task, size));
      blocks.push({ type: 'image', data: thumbnail.data, mimeType: thumbnail.mimeType });
    } else {
      blocks.push({
        type: 'text',
        text: `${completedAt}: ${task.imageUrl} (no thumbnail: ${outcome?.reason ?? 'unknown reason'})`,
      });
      blocks.push(resourceLinkOf(task, size));
    }
  });
  return blocks;
}

/** The finished image as a link: its stable URL, media type and size, never its bytes. */
function resourceLinkOf(task: TaskRecord & { imageUrl: string }, size: string): ContentBlock {
  const fileName = new URL(task.imageUrl).pathname.split('/').pop() || `${task.task_id}`;
  return {
    type: 'resource_link',
    uri: task.imageUrl,
    name: fileName,
    title: `Image of task ${task.task_id}`,
    description: `The generated image${size}; read it with resources/read or download the URL.`,
    ...(task.contentType ? { mimeType: task.contentType } : {}),
    ...(task.bytes !== undefined ? { size: task.bytes } : {}),
  };
}

/** Advice on what to call next for tasks that have not finished yet, or undefined when all have. */
export function pollingHint(
  tasks: readonly Pick<
    TaskRecord,
    'task_id' | 'status' | 'waiting_for' | 'queue_position' | 'estimated_start_at'
  >[],
): string | undefined {
  const pending = tasks.filter((task) => !isFinalStatus(task.status));
  if (pending.length === 0) return undefined;
  const ids = JSON.stringify(pending.map((task) => task.task_id));
  const hint =
    pending.length === 1
      ? `Task ${pending[0]?.task_id} is still ${pending[0]?.status}; call get_task again in 2-5 seconds.`
      : `${pending.length} tasks are not finished; call batch_get_tasks with task_ids ${ids} again in 2-5 seconds.`;
  const waiting = pending.filter((task) => task.waiting_for === 'upstream_capacity').length;
  if (waiting === 0) return hint;
  // Said plainly, so an agent neither gives up nor resubmits: the wait is a queue, not a failure.
  const who = waiting === 1 && pending.length === 1 ? 'It waits' : `${waiting} of them wait`;
  return `${hint} ${who} for upstream capacity (the provider's rate limit): a wait keeps its turn and never fails a task; do not submit again.${whereItStands(pending, waiting)}`;
}

/** The place of the waiting task nearest its turn, and its start estimate when the record has one. */
function whereItStands(
  pending: readonly Pick<TaskRecord, 'waiting_for' | 'queue_position' | 'estimated_start_at'>[],
  waiting: number,
): string {
  let first: (typeof pending)[number] | undefined;
  for (const task of pending) {
    if (task.waiting_for !== 'upstream_capacity' || task.queue_position === undefined) continue;
    if (first?.queue_position === undefined || task.queue_position < first.queue_position) first = task;
  }
  if (first === undefined) return '';
  const start = first.estimated_start_at ? `, expected to start around ${first.estimated_start_at}` : '';
  return ` ${waiting === 1 ? 'It is' : 'The first of them is'} #${first.queue_position} in your queue${start}.`;
}
