import type { OpenAiUsage } from '../contract/openai.js';
import type { TaskRecord } from '../tasks/task-record.js';
import type { TasksService } from '../tasks/tasks-service.js';

/** Usage of no tokens: what a streamed completed event carries when no upstream reported any. */
export const NO_USAGE: OpenAiUsage = {
  input_tokens: 0,
  output_tokens: 0,
  total_tokens: 0,
  input_tokens_details: { image_tokens: 0, text_tokens: 0 },
};

/**
 * The token usage of an answer's completed images, summed, as their upstreams reported it (stored
 * on each task); undefined when none reported any (Atelier never invents tokens). The records are
 * the caller's, read for its account.
 */
export async function answerUsage(
  tasks: Pick<TasksService, 'usageOf'>,
  completed: readonly TaskRecord[],
): Promise<OpenAiUsage | undefined> {
  if (completed.length === 0) return undefined;
  const reported = [...(await tasks.usageOf(completed.map((record) => record.task_id))).values()];
  if (reported.length === 0) return undefined;
  const sum = (pick: (usage: OpenAiUsage) => number | undefined) =>
    reported.reduce((total, usage) => total + (pick(usage) ?? 0), 0);
  const usage: OpenAiUsage = {
    input_tokens: sum((u) => u.input_tokens),
    output_tokens: sum((u) => u.output_tokens),
    total_tokens: sum((u) => u.total_tokens),
  };
  if (reported.some((u) => u.input_tokens_details))
    usage.input_tokens_details = {
      image_tokens: sum((u) => u.input_tokens_details?.image_tokens),
      text_tokens: sum((u) => u.input_tokens_details?.text_tokens),
    };
  return usage;
}
