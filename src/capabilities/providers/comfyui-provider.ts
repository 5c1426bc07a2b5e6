/**
 * ComfyUI servers, one pool (`ATELIER_COMFYUI_URL`, comma-separated): an asynchronous upstream.
 * `submit` picks the server with the shortest queue (`GET /prompt`'s `queue_remaining`, every
 * client's prompts) under `maxQueue` — one prompt runs at a time on a server, the rest wait — uploads
 * the references, fills the workflow the catalog names (comfyui-workflow.ts) and queues it with
 * `POST /prompt`; every server full is a rate limit (the task waits for capacity). The task's
 * upstream id is `<server key>:<prompt id>`.
 *
 * `poll` reads the prompt's state from the server's websocket (comfyui-socket.ts: progress moves as
 * the sampler steps) while the socket has been open since the prompt was queued, else from
 * `GET /history/{id}` and `GET /queue`; the result is copied with `GET /view`. A server that no longer
 * answers (connection refused), or that lost the prompt (restarted: in neither its history nor its
 * queue), has the task queued again on another server of the pool: the poll answers the new id.
 * `cancel` deletes a waiting prompt (`POST /queue {delete}`) or interrupts the running one.
 */
import type { Dispatcher } from 'undici';
import { type ComfyApi, type ComfyServer, createComfyApi, serverKeyOf } from './comfyui-api.js';
import { ComfyPool } from './comfyui-pool.js';
import { createComfySocket } from './comfyui-socket.js';
import { type ComfyRouteSettings, createWorkflowFiles } from './comfyui-workflow.js';
import type { ImageProvider } from './provider.js';
import { createUpstreamDispatcher } from './upstream-call.js';

export interface ComfyUIProviderOptions {
  urls: readonly string[];
  /** Prompts one server may hold at once, running and waiting (default 4). */
  maxQueue?: number;
  /** Where relative workflow paths start (the catalog file's folder). */
  workflowDir: string;
  requestTimeoutMs?: number;
  pollIntervalMs?: number;
  /** A socket with no submit or poll for this long is closed (default 15 s). */
  socketIdleMs?: number;
  /** How long a submit waits for the socket to open before queueing without it (default 2 s). */
  socketWaitMs?: number;
  expectedDurationMs?: number;
  dispatcher?: Dispatcher;
}

export interface ComfyUIProvider extends ImageProvider {
  /** The catalog's `comfyui` blocks, by workflow (upstream model). */
  configure(routes: ReadonlyMap<string, ComfyRouteSettings>): void;
}

/** Creates the ComfyUI adapter over its pool of servers (comfyui-pool.ts). */
export function createComfyUIProvider(options: ComfyUIProviderOptions): ComfyUIProvider {
  const api: ComfyApi = createComfyApi({
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    dispatcher: options.dispatcher ?? createUpstreamDispatcher(),
  });
  const servers: ComfyServer[] = options.urls.map((url) => ({
    url,
    key: serverKeyOf(url),
    socket: createComfySocket(url, { idleMs: options.socketIdleMs ?? 15_000 }),
  }));
  const pool = new ComfyPool({
    api,
    files: createWorkflowFiles(options.workflowDir),
    servers,
    maxQueue: options.maxQueue ?? 4,
    socketWaitMs: options.socketWaitMs ?? 2000,
  });

  return {
    name: 'comfyui',
    requiresKey: false,
    submitsInline: true,
    pollIntervalMs: options.pollIntervalMs ?? 1000,
    expectedDurationMs: () => options.expectedDurationMs ?? 30_000,
    submit: (request) => pool.submit(request),
    poll: (request) => pool.poll(request),
    cancel: (request) => pool.cancel(request),
    checkModels: (models, _apiKey, signal) => pool.checkModels(models, signal),
    configure(routes) {
      pool.routes = routes;
    },
  };
}
