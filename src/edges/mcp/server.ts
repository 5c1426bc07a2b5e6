import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AtelierClient } from '../client/atelier-client.js';
import { registerCatalogResource } from './catalog-resource.js';
import { registerGalleryApp } from './gallery-app.js';
import { createGenerationTaskStore, type TaskIdSeal } from './generation-tasks.js';
import { listToolIcons, SERVER_ICONS } from './icons.js';
import { registerImageResources } from './image-resources.js';
import { registerPrompts } from './prompts.js';
import { READ_ONLY_INSTRUCTIONS, refuseWriteTools } from './read-only.js';
import { SERVER_VERSION } from './server-version.js';
import type { SpendConfirmationOptions } from './spend-confirmation.js';
import type { PollingClock } from './task-polling.js';
import { refuseUnissuedCursors, refuseUnofferedTaskRequests } from './task-requests.js';
import { createThumbnailer, type Thumbnailer } from './thumbnails.js';
import { ACT_ON_IMAGE } from './tools/act-on-image.js';
import { registerBatchGetTasks } from './tools/batch-get-tasks.js';
import { GENERATE_IMAGE, registerGenerationTool } from './tools/generate-image-tool.js';
import { registerGetAccountStatus } from './tools/get-account-status.js';
import { registerGetTask } from './tools/get-task.js';
import { registerListModels } from './tools/list-models.js';
import { registerListMyGenerations } from './tools/list-my-generations.js';
import { registerListVersions } from './tools/list-versions.js';
import { registerQuoteImage } from './tools/quote-image.js';
import { REFINE_IMAGE } from './tools/refine-image.js';
import { registerUploadReferenceImage } from './tools/upload-reference-image.js';

export const SERVER_NAME = 'atelier';
export { SERVER_VERSION };

const INSTRUCTIONS = `Atelier generates images through its HTTP API on the user's account.
Typical flow:
1. Optionally get_account_status: tier (trial < starter < standard < pro) is a cost hint; has_key false means generation cannot run. list_models lists the models (modes, sizes, qualities, seeds, prices per image, lifecycle) and the actions offered; quote_image prices a call before it runs; its quote_id caps what generate_image (or refine_image) then charges.
2. For an edit, upload_reference_image (source_url or local path) and pass the returned url in imageUrls with mode "edit".
3. generate_image with wait (e.g. 45) to get the finished images in one call, or without wait to get task ids at once.
4. For tasks still running, batch_get_tasks (up to 20 ids) or get_task every 2-5 seconds until completed or failed.
5. To change an image already made ("now make the sky darker"), refine_image with its task id and the instruction: it makes the next version, which names its parent; list_versions shows every version of a work.
6. To upscale, vary, expand (outpaint), remove the background of, or reroll an image already made, act_on_image with its id and the action: the result is a new version too. A seed on generate_image, refine_image or act_on_image repeats an image exactly (on models with seeds).
Completed tasks carry a stable imageUrl (give it to the user), a resource link to it and a small thumbnail. Errors name their type and what to fix.
Clients that speak MCP tasks may call generate_image, refine_image and act_on_image task-augmented and poll tasks/get instead of waiting.`;

export interface CreateServerOptions {
  /** Authenticates the MCP task ids this server issues, under a key bound to the caller's account. */
  taskIdSeal: TaskIdSeal;
  thumbnailer?: Thumbnailer;
  /**
   * How the server fetches Atelier's public files (thumbnails, resources/read); default the global
   * fetch. The remote endpoint passes one that stays inside the app.
   */
  fetchFile?: typeof fetch;
  /** Where Atelier's /files URLs live (its public base URL); default the client's base URL. */
  filesBaseUrl?: string;
  /** Whether upload_reference_image may read local files (`path`); the remote endpoint says no. */
  localFiles?: boolean;
  /** Time source for generate_image's wait; tests pass a fake one. */
  clock?: PollingClock;
  pollIntervalMs?: number;
  /**
   * Only the read tools (READ_TOOLS), no prompts, no MCP tasks: /mcp/readonly. A write tool's call is
   * refused by name, pointing to `fullEndpoint` (default "/mcp").
   */
  readOnly?: { fullEndpoint: string };
  /**
   * What the calls act with, for the account's spend confirmation (docs/mcp.md "Spend confirmation"):
   * the tools that spend ask the person first where it applies. Absent: they never ask.
   */
  spendConfirmation?: SpendConfirmationOptions;
}

/**
 * An MCP server exposing Atelier's eleven tools (seven when read-only) and its prompts over the given
 * API client; connect it to any transport.
 */
export function createServer(client: AtelierClient, options: CreateServerOptions): McpServer {
  const fetchFile = options.fetchFile ?? globalThis.fetch;
  const thumbnailer = options.thumbnailer ?? createThumbnailer({ fetch: fetchFile });
  const info = {
    name: SERVER_NAME,
    title: 'Atelier image generation',
    version: SERVER_VERSION,
    icons: SERVER_ICONS,
  };
  if (options.readOnly) {
    const server = new McpServer(info, { instructions: READ_ONLY_INSTRUCTIONS });
    registerReadTools(server, client, thumbnailer, { ...options, fetchFile });
    refuseWriteTools(server, options.readOnly.fullEndpoint);
    listToolIcons(server);
    refuseUnissuedCursors(server);
    return server;
  }
  const server = new McpServer(info, {
    instructions: INSTRUCTIONS,
    // MCP tasks (spec 2025-11-25) for the generation tools, kept in Atelier's own tasks (no list).
    capabilities: { tasks: { requests: { tools: { call: {} } }, cancel: {} } },
    taskStore: createGenerationTaskStore(client, { thumbnailer, taskIdSeal: options.taskIdSeal }),
  });
  const generateOptions = {
    thumbnailer,
    taskIdSeal: options.taskIdSeal,
    ...(options.spendConfirmation ? { spendConfirmation: options.spendConfirmation } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
  };
  registerGenerationTool(server, client, GENERATE_IMAGE, generateOptions);
  registerGenerationTool(server, client, REFINE_IMAGE, generateOptions);
  registerGenerationTool(server, client, ACT_ON_IMAGE, generateOptions);
  registerUploadReferenceImage(server, client, options.localFiles ?? true);
  registerReadTools(server, client, thumbnailer, { ...options, fetchFile });
  registerPrompts(server);
  refuseUnofferedTaskRequests(server, new Set(['generate_image', 'refine_image', 'act_on_image']));
  listToolIcons(server);
  refuseUnissuedCursors(server);
  return server;
}

/** The tools that only read (or price), and the resources: the catalog and Atelier's files. */
function registerReadTools(
  server: McpServer,
  client: AtelierClient,
  thumbnailer: Thumbnailer,
  options: CreateServerOptions & { fetchFile: typeof fetch },
): void {
  registerGetTask(server, client, thumbnailer);
  registerBatchGetTasks(server, client, thumbnailer);
  registerListMyGenerations(server, client);
  registerListVersions(server, client);
  registerGetAccountStatus(server, client);
  registerQuoteImage(server, client);
  registerListModels(server, client);
  registerCatalogResource(server, client);
  const filesBaseUrl = options.filesBaseUrl ?? client.baseUrl;
  registerImageResources(server, { filesBaseUrl, fetch: options.fetchFile });
  registerGalleryApp(server, { filesBaseUrl });
}
