import type { OpenAiUsage } from '../../base/contract/openai.js';
import type {
  ImageGenerationCall,
  ImageGenerationTool,
  OpenAiResponse,
} from '../../base/contract/openai-responses.js';
import { isFinalStatus } from '../../base/domain/task-status.js';
import type { StoredResponse } from '../../capabilities/responses/index.js';
import type { TaskRecord } from '../../capabilities/tasks/index.js';
import { imageCallIdOf } from './responses-request.js';

/**
 * OpenAI's `Response` object of a stored (or unstored) response, rebuilt from what it echoes and
 * its tasks' records: queued or in_progress while they render, then completed with each image's
 * bytes (`result`) or failed with OpenAI's error object.
 */

/** What a response echoes of its request (kept as the stored row's body). */
export interface ResponseEcho {
  model: string;
  tools: ImageGenerationTool[];
  prompt: string;
  action: 'generate' | 'edit';
  background: boolean;
  store: boolean;
  instructions: string | null;
  metadata: Record<string, string>;
}

/** The echo of a stored row (written by responseEchoOf's caller; read back as it was written). */
export const echoOf = (stored: Pick<StoredResponse, 'body'>) => stored.body as unknown as ResponseEcho;

/** Each image's bytes (base64) and the usage, once its tasks ended. */
export interface ResponseResults {
  images: ReadonlyMap<string, string>;
  usage: OpenAiUsage | undefined;
}

type Status = OpenAiResponse['status'];

function statusOf(records: readonly TaskRecord[]): Status {
  if (!records.every((record) => isFinalStatus(record.status)))
    return records.some((record) => record.status !== 'queued') ? 'in_progress' : 'queued';
  return records.some((record) => record.status === 'completed') ? 'completed' : 'failed';
}

const ECHOED = ['background', 'quality', 'size'] as const;

/** One image item (OpenAI's `ImageGenerationCall`). */
export function imageCallOf(
  echo: ResponseEcho,
  record: TaskRecord,
  result: string | undefined,
): ImageGenerationCall {
  const tool = echo.tools[0];
  const status =
    record.status === 'completed' ? 'completed' : isFinalStatus(record.status) ? 'failed' : 'in_progress';
  const produced = record.width && record.height ? `${record.width}x${record.height}` : undefined;
  return {
    type: 'image_generation_call',
    id: imageCallIdOf(record.task_id),
    status,
    result: status === 'completed' ? (result ?? null) : null,
    revised_prompt: echo.prompt,
    action: echo.action,
    ...Object.fromEntries(ECHOED.map((field) => [field, tool?.[field] ?? 'auto'])),
    ...(status === 'completed'
      ? {
          background: 'opaque',
          output_format: record.contentType?.replace(/^image\//, '') ?? 'png',
          ...(produced ? { size: produced } : {}),
        }
      : { output_format: tool?.output_format ?? 'png' }),
  };
}

/** OpenAI's `ResponseUsage` of the images' reported tokens (zeros when none reported any). */
function usageOf(usage: OpenAiUsage | undefined) {
  return {
    input_tokens: usage?.input_tokens ?? 0,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage?.output_tokens ?? 0,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage?.total_tokens ?? 0,
  };
}

/** The response as its records and results say. */
export function responseOf(
  stored: Pick<StoredResponse, 'id' | 'createdAt' | 'previousResponseId' | 'body'>,
  records: readonly TaskRecord[],
  results: ResponseResults | undefined,
): OpenAiResponse {
  const echo = echoOf(stored);
  const status = statusOf(records);
  const failure = records.find((record) => record.error)?.error ?? 'Task failed';
  const ids = records.map((record) => record.task_id).join(',');
  return {
    id: stored.id,
    object: 'response',
    created_at: Math.floor(stored.createdAt / 1000),
    status,
    background: echo.background,
    error:
      status === 'failed'
        ? { code: 'server_error', message: `Image generation failed: ${failure} (task ids: ${ids})` }
        : null,
    incomplete_details: null,
    instructions: echo.instructions,
    max_output_tokens: null,
    metadata: echo.metadata,
    model: echo.model,
    output: records.map((record) => imageCallOf(echo, record, results?.images.get(record.task_id))),
    parallel_tool_calls: true,
    previous_response_id: stored.previousResponseId,
    reasoning: { effort: null, summary: null },
    store: echo.store,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: echo.tools,
    top_p: 1,
    truncation: 'disabled',
    usage: status === 'completed' || status === 'failed' ? usageOf(results?.usage) : null,
    user: null,
  };
}
