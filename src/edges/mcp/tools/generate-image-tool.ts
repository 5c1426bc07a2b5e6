import type { CreateTaskResult } from '@modelcontextprotocol/sdk/experimental/tasks/types.js';
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type {
  CallToolRequest,
  CallToolResult,
  ServerNotification,
  ServerRequest,
  ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import type { AtelierClient } from '../../client/atelier-client.js';
import { GALLERY_TOOL_META } from '../gallery-app.js';
import { encodeGenerationTaskId, TASK_POLL_INTERVAL_MS, type TaskIdSeal } from '../generation-tasks.js';
import { confirmSpend, type SpendConfirmationOptions } from '../spend-confirmation.js';
import { errorResult } from '../tool-results.js';
import {
  GENERATE_IMAGE_TOOL,
  type GenerateArgs,
  type GenerateImageOptions,
  generateAndWait,
  type generateOutputSchema,
  generateRequestOf,
  generateSubmission,
  type Submission,
} from './generate-image.js';

type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A refusal's words: a declined call's hint, or the tool error's text. */
function refusalText(refusal: CallToolResult): string {
  const hint = refusal.structuredContent?.hint;
  return typeof hint === 'string'
    ? hint
    : ((refusal.content[0] as { text?: string }).text ?? 'not confirmed');
}

/** The SDK's McpServer internals this file relies on (see registerGenerationTool). */
interface TaskPollingHook {
  handleAutomaticTaskPolling(
    tool: unknown,
    request: CallToolRequest,
    extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  ): Promise<CallToolResult>;
  validateToolInput(tool: unknown, args: unknown, toolName: string): Promise<unknown>;
}

/**
 * A tool that submits a generation: `generate_image`, `refine_image` (a generate with a parent) and
 * `act_on_image` (an action on a finished image).
 */
export interface GenerationTool {
  name: string;
  config: {
    title: string;
    description: string;
    inputSchema: ZodRawShapeCompat;
    outputSchema: typeof generateOutputSchema;
    annotations: ToolAnnotations;
  };
  /** The API request of a call (its arguments already checked against the input schema). */
  submission(args: Record<string, unknown>): Submission;
  /** The API's refusal in the tool's own terms (e.g. a field named as the tool names it). */
  explainError?(error: unknown): unknown;
}

/** `generate_image` as a generation tool: the call's arguments are the API's body, but `wait`. */
export const GENERATE_IMAGE: GenerationTool = {
  name: 'generate_image',
  config: GENERATE_IMAGE_TOOL,
  submission: (args) => {
    const generateArgs = args as GenerateArgs;
    return generateSubmission(generateRequestOf(generateArgs), generateArgs.wait ?? 0);
  },
};

/**
 * Registers a generation tool. Task-augmented calls (MCP tasks, spec 2025-11-25) submit the generation
 * and answer a task at once, whose id names the Atelier tasks (src/edges/mcp/generation-tasks.ts). Plain
 * calls keep `wait` and progress notifications.
 */
export function registerGenerationTool(
  server: McpServer,
  client: AtelierClient,
  tool: GenerationTool,
  options: GenerateImageOptions & { taskIdSeal: TaskIdSeal; spendConfirmation?: SpendConfirmationOptions },
): RegisteredTool {
  const { taskIdSeal, spendConfirmation, ...generateOptions } = options;
  const explainError = (error: unknown) => (tool.explainError ? tool.explainError(error) : error);
  // The person's confirmation before a call spends (docs/mcp.md "Spend confirmation"); undefined: go ahead.
  const confirmed = (submission: Submission, extra: ToolExtra) =>
    spendConfirmation
      ? confirmSpend(
          server.server,
          client,
          (signal) => submission.price(client, signal),
          extra,
          spendConfirmation,
        )
      : Promise.resolve(undefined);
  const registered = server.experimental.tasks.registerToolTask<
    ZodRawShapeCompat,
    typeof generateOutputSchema
  >(
    tool.name,
    // Hosts with MCP Apps show the result in the gallery (gallery-app.ts); others ignore _meta.
    { ...tool.config, execution: { taskSupport: 'optional' }, _meta: GALLERY_TOOL_META },
    {
      createTask: async (args, extra): Promise<CreateTaskResult> => {
        const createdAt = Date.now();
        const at = new Date(createdAt).toISOString();
        const base = { ttl: null, createdAt: at, lastUpdatedAt: at, pollInterval: TASK_POLL_INTERVAL_MS };
        // Nothing was created (declined, unanswered, a host that cannot ask, the API's refusal). A
        // task-augmented call must still answer a task (the SDK refuses any other answer with an
        // unreadable validation error), so the refusal is a task that failed: tasks/get says why,
        // tasks/result is the tool error with the API's type and advice.
        const failed = (refusal: CallToolResult) => {
          const failure = refusalText(refusal);
          const taskId = encodeGenerationTaskId({ taskIds: [], createdAt, failure }, taskIdSeal);
          return { task: { taskId, status: 'failed' as const, statusMessage: failure, ...base } };
        };
        let taskIds: string[];
        const submission = tool.submission(args as Record<string, unknown>);
        const refusal = await confirmed(submission, extra);
        if (refusal) return failed(refusal);
        try {
          ({ task_ids: taskIds } = await submission.send(client, extra.signal));
        } catch (error) {
          return failed(errorResult(explainError(error)));
        }
        return {
          task: {
            taskId: encodeGenerationTaskId({ taskIds, createdAt }, taskIdSeal),
            status: 'working' as const,
            statusMessage: `Submitted ${taskIds.length} task(s)`,
            ...base,
          },
        };
      },
      getTask: (_args, extra) => extra.taskStore.getTask(extra.taskId),
      getTaskResult: async (_args, extra) =>
        (await extra.taskStore.getTaskResult(extra.taskId)) as CallToolResult,
    },
  );

  // A tool with taskSupport "optional" called without a task: the SDK would create the task itself
  // and poll it to the end (no `wait`, no progress notifications, no answer before the images are
  // done). Its hook for that case runs the tool's own behaviour instead. The hook is the SDK's
  // (McpServer.handleAutomaticTaskPolling, 1.32); test/mcp covers both kinds of call. Each generation
  // tool wraps the hook once and hands other tools' calls on.
  const sdk = server as unknown as TaskPollingHook;
  const previous = sdk.handleAutomaticTaskPolling.bind(server);
  sdk.handleAutomaticTaskPolling = async (registered, request, extra) => {
    if (request.params.name !== tool.name) return previous(registered, request, extra);
    const args = await sdk.validateToolInput(registered, request.params.arguments, request.params.name);
    const submission = tool.submission(args as Record<string, unknown>);
    const refusal = await confirmed(submission, extra);
    if (refusal) return refusal;
    return generateAndWait(client, submission, extra, {
      ...generateOptions,
      explainError,
    });
  };
  return registered;
}
