import type { CreateTaskResult } from '@modelcontextprotocol/sdk/experimental/tasks/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type {
  CallToolRequest,
  CallToolResult,
  ServerNotification,
  ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { AtelierClient } from '../../client/atelier-client.js';
import { encodeGenerationTaskId, TASK_POLL_INTERVAL_MS, type TaskIdSeal } from '../generation-tasks.js';
import { errorResult } from '../tool-results.js';
import {
  GENERATE_IMAGE_TOOL,
  type GenerateArgs,
  type GenerateImageOptions,
  generateAndWait,
  type generateInputSchema,
  type generateOutputSchema,
  generateRequestOf,
} from './generate-image.js';

/** The SDK's McpServer internals this file relies on (see registerGenerateImage). */
interface TaskPollingHook {
  handleAutomaticTaskPolling(
    tool: unknown,
    request: CallToolRequest,
    extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  ): Promise<CallToolResult>;
  validateToolInput(tool: unknown, args: unknown, toolName: string): Promise<unknown>;
}

/**
 * Registers `generate_image`. Task-augmented calls (MCP tasks, spec 2025-11-25) submit the generation
 * and answer a task at once, whose id names the Atelier tasks (src/edges/mcp/generation-tasks.ts). Plain
 * calls keep `wait` and progress notifications.
 */
export function registerGenerateImage(
  server: McpServer,
  client: AtelierClient,
  options: GenerateImageOptions & { taskIdSeal: TaskIdSeal },
): void {
  const { taskIdSeal, ...generateOptions } = options;
  server.experimental.tasks.registerToolTask<typeof generateInputSchema, typeof generateOutputSchema>(
    'generate_image',
    { ...GENERATE_IMAGE_TOOL, execution: { taskSupport: 'optional' } },
    {
      createTask: async (args, extra): Promise<CreateTaskResult> => {
        const createdAt = Date.now();
        const at = new Date(createdAt).toISOString();
        const base = { ttl: null, createdAt: at, lastUpdatedAt: at, pollInterval: TASK_POLL_INTERVAL_MS };
        let taskIds: string[];
        try {
          ({ task_ids: taskIds } = await client.generate(generateRequestOf(args), { signal: extra.signal }));
        } catch (error) {
          // Nothing was created. A task-augmented call must still answer a task (the SDK refuses any
          // other answer with an unreadable validation error), so the refusal is a task that failed:
          // tasks/get says why, tasks/result is the tool error with the API's type and advice.
          const failure = (errorResult(error).content[0] as { text: string }).text;
          const taskId = encodeGenerationTaskId({ taskIds: [], createdAt, failure }, taskIdSeal);
          return { task: { taskId, status: 'failed' as const, statusMessage: failure, ...base } };
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
  // (McpServer.handleAutomaticTaskPolling, 1.32); test/mcp covers both kinds of call.
  const sdk = server as unknown as TaskPollingHook;
  const automatic = sdk.handleAutomaticTaskPolling.bind(server);
  sdk.handleAutomaticTaskPolling = async (tool, request, extra) => {
    if (request.params.name !== 'generate_image') return automatic(tool, request, extra);
    const args = (await sdk.validateToolInput(
      tool,
      request.params.arguments,
      request.params.name,
    )) as GenerateArgs;
    return generateAndWait(client, args, extra, generateOptions);
  };
}
