import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AtelierClient } from '../client/atelier-client.js';
import type { PollingClock } from './task-polling.js';
import { createThumbnailer, type Thumbnailer } from './thumbnails.js';
import { registerBatchGetTasks } from './tools/batch-get-tasks.js';
import { registerGenerateImage } from './tools/generate-image.js';
import { registerGetAccountStatus } from './tools/get-account-status.js';
import { registerGetTask } from './tools/get-task.js';
import { registerListMyGenerations } from './tools/list-my-generations.js';
import { registerUploadReferenceImage } from './tools/upload-reference-image.js';

export const SERVER_NAME = 'atelier';
export const SERVER_VERSION = '0.1.0';

const INSTRUCTIONS = `Atelier generates images through its HTTP API on the user's account.
Typical flow:
1. Optionally get_account_status: tier (trial < starter < standard < pro) is a cost hint; has_key false means generation cannot run.
2. For an edit, upload_reference_image (source_url or local path) and pass the returned url in imageUrls with mode "edit".
3. generate_image with wait (e.g. 45) to get the finished images in one call, or without wait to get task ids at once.
4. For tasks still running, batch_get_tasks (up to 20 ids) or get_task every 2-5 seconds until completed or failed.
Completed tasks carry a stable imageUrl (give it to the user) and a small thumbnail. Errors name their type and what to fix.`;

export interface CreateServerOptions {
  thumbnailer?: Thumbnailer;
  /** Time source for generate_image's wait; tests pass a fake one. */
  clock?: PollingClock;
  pollIntervalMs?: number;
}

/** An MCP server exposing Atelier's six tools over the given API client; connect it to any transport. */
export function createServer(client: AtelierClient, options: CreateServerOptions = {}): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, title: 'Atelier image generation', version: SERVER_VERSION },
    { instructions: INSTRUCTIONS },
  );
  const thumbnailer = options.thumbnailer ?? createThumbnailer();
  const generateOptions = {
    thumbnailer,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
  };
  registerGenerateImage(server, client, generateOptions);
  registerGetTask(server, client, thumbnailer);
  registerBatchGetTasks(server, client, thumbnailer);
  registerUploadReferenceImage(server, client);
  registerListMyGenerations(server, client);
  registerGetAccountStatus(server, client);
  return server;
}
