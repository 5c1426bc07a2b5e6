import type { OpenAiUsage } from '../../base/contract/openai.js';
import type { TaskRecord, TasksService } from '../../capabilities/tasks/index.js';

/** Usage of no tokens: what a streamed completed event carries when no upstream reported any. */
export const NO_USAGE: OpenAiUsage = {
  input_tokens: 0,
  output_tokens: 0,
  total_tokens: 0,
  input_tokens_details: { image_tokens: 0, text_tokens: 0 },
};

/**
 * The token usage of an answer's completed images, summed, as their upstreams reported it (stored
 * on each task), in OpenAI's `usage` shape; undefined when none reported any (Atelier never invents
 * tokens). A Gemini upstream's counts arrive mapped (input ← promptTokenCount, output ←
 * candidatesTokenCount, total ← totalTokenCount, which also counts a thinking model's thoughts).
 * The records are the caller's, read for its account.
 */
export async function answerUsage(
  tasks: Pick<TasksService, 'reportedUsage'>,
  completed: readonly TaskRecord[],
): Promise<OpenAiUsage | undefined> {
  const reported = await tasks.reportedUsage(completed.map((record) => record.task_id));
  if (!reported) return undefined;
  const { input_tokens, output_tokens, total_tokens, input_tokens_details } = reported;
  return {
    input_tokens,
    output_tokens,
    total_tokens,
    ...(input_tokens_details ? { input_tokens_details } : {}),
  };
}
