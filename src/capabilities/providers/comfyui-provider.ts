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
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { Dispatcher } from 'undici';
import {
  type ComfyApi,
  type ComfyServer,
  createComfyApi,
  comfyFailure as fail,
  serverKeyOf,
} from './comfyui-api.js';
import { createComfySocket } from './comfyui-socket.js';
import {
  type ComfyRouteSettings,
  checkpointsOf,
  createWorkflowFiles,
  fillWorkflow,
} from './comfyui-workflow.js';
import type {
  ImageProvider,
  PollOutcome,
  ProviderFailure,
  ProviderRequest,
  SubmitOutcome,
} from './provider.js';
import { seedForTask } from './replicate-inputs.js';
import { createUpstreamDispatcher } from './upstream-call.js';
import { isRecord } from './upstream-json.js';

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

/** A full pool is asked again after this long (or sooner, when a release calls the task back). */
const FULL_RETRY_MS = 2000;

type Located = { server: ComfyServer; promptId: string };

/** A prompt id derived from the task: the same on a resubmit, so a lost answer can be found again. */
function promptIdOf(taskId: string): string {
  const hex = createHash('sha256').update(`atelier:${taskId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The server is not there (refused, unresolvable): the read never reached it. */
const unreachable = (failure: ProviderFailure) =>
  failure.cause === 'network' && failure.maybeAccepted === false;

export interface ComfyUIProvider extends ImageProvider {
  /** The catalog's `comfyui` blocks, by workflow (upstream model). */
  configure(routes: ReadonlyMap<string, ComfyRouteSettings>): void;
}

export function createComfyUIProvider(options: ComfyUIProviderOptions): ComfyUIProvider {
  const maxQueue = options.maxQueue ?? 4;
  const api: ComfyApi = createComfyApi({
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    dispatcher: options.dispatcher ?? createUpstreamDispatcher(),
  });
  const files = createWorkflowFiles(options.workflowDir);
  const servers: ComfyServer[] = options.urls.map((url) => ({
    url,
    key: serverKeyOf(url),
    socket: createComfySocket(url, { idleMs: options.socketIdleMs ?? 15_000 }),
  }));
  let settings: ReadonlyMap<string, ComfyRouteSettings> = new Map();
  let turn = 0;

  function locate(upstreamId: string): Located | ProviderFailure {
    const colon = upstreamId.indexOf(':');
    const server = servers.find((s) => s.key === upstreamId.slice(0, colon));
    if (colon < 1 || !server) {
      return fail('the server that took this task is no longer in ATELIER_COMFYUI_URL', {
        retryable: false,
        cause: 'upstream_error',
      });
    }
    return { server, promptId: upstreamId.slice(colon + 1) };
  }

  /** The server with the shortest queue under the bound, round robin between equals. */
  async function chooseServer(excluded: ComfyServer | undefined, signal: AbortSignal) {
    const candidates = servers.filter((s) => s !== excluded);
    const queues = await Promise.all(candidates.map((s) => api.queueRemaining(s, signal)));
    const open = candidates.flatMap((server, i) => {
      const queued = queues[i];
      return typeof queued === 'number' ? [{ server, queued }] : [];
    });
    if (open.length === 0) {
      return fail(`no ComfyUI server answered (${candidates.length} tried)`, {
        retryable: true,
        maybeAccepted: false,
        cause: 'network',
      });
    }
    const shortest = Math.min(...open.map((o) => o.queued));
    if (shortest >= maxQueue) {
      return fail(`every server's queue is full (${maxQueue} prompts each)`, {
        retryable: true,
        retryAfterMs: FULL_RETRY_MS,
        cause: 'rate_limited',
      });
    }
    const best = open.filter((o) => o.queued === shortest);
    turn = (turn + 1) % 1_000_000;
    return (best[turn % best.length] ?? open[0] ?? { server: candidates[0] as ComfyServer }).server;
  }

  /** The request's references as PNGs of the target size, uploaded; answers the LoadImage values. */
  async function uploadReferences(server: ComfyServer, request: ProviderRequest) {
    const names: string[] = [];
    const references = request.mode === 'text' ? [] : request.references;
    for (const [i, reference] of references.entries()) {
      const png = await sharp(reference.bytes, { animated: false })
        .resize(request.width, request.height, { fit: 'cover' })
        .png()
        .toBuffer()
        .catch(() => undefined);
      if (!png)
        return fail(`reference image ${i + 1} could not be decoded`, {
          retryable: false,
          cause: 'invalid_request',
        });
      const uploaded = await api.upload(server, `${request.taskId}-${i + 1}.png`, png, request.signal);
      if ('kind' in uploaded) return { ...uploaded, maybeAccepted: false };
      names.push(uploaded.image);
    }
    return names;
  }

  /** Queues the task's prompt on `server`. */
  async function queueOn(
    server: ComfyServer,
    request: ProviderRequest,
    promptId: string,
  ): Promise<SubmitOutcome> {
    const route = settings.get(request.upstreamModel) ?? {};
    const file =
      (request.mode === 'text' ? undefined : route.workflows?.[request.mode]) ?? request.upstreamModel;
    const workflow = await files.load(file);
    if (typeof workflow === 'string') return fail(workflow, { retryable: false, cause: 'invalid_request' });
    const images = await uploadReferences(server, request);
    if (!Array.isArray(images)) return images;
    const filled = fillWorkflow(workflow, route, {
      prompt: request.prompt,
      width: request.width,
      height: request.height,
      seed: seedForTask(request.taskId, { minimum: 0, maximum: 2 ** 32 - 1 }),
      images,
    });
    if (typeof filled === 'string')
      return fail(`${file}: ${filled}`, { retryable: false, cause: 'invalid_request' });
    // Opened first, so that every message of the prompt is seen (else the polls read its history).
    await server.socket.ready(options.socketWaitMs ?? 2000);
    const body = JSON.stringify({ prompt: filled, client_id: server.socket.clientId, prompt_id: promptId });
    const answer = await api.json(server, '/prompt', request.signal, body);
    if (!('json' in answer)) return answer;
    const id =
      isRecord(answer.json) && typeof answer.json.prompt_id === 'string' ? answer.json.prompt_id : undefined;
    if (!id)
      return fail('the answer holds no prompt_id', {
        retryable: true,
        maybeAccepted: true,
        cause: 'bad_response',
      });
    server.socket.watch(id);
    return { kind: 'pending', upstreamId: `${server.key}:${id}`, progress: 0 };
  }

  /** A prompt this task may already have queued (a submit whose answer was lost). */
  async function findQueued(promptId: string, signal: AbortSignal): Promise<ComfyServer | undefined> {
    for (const server of servers) {
      const [queue, history] = await Promise.all([
        api.queue(server, signal),
        api.history(server, promptId, signal),
      ]);
      if ('entry' in history && history.entry) return server;
      if ('running' in queue && [...queue.running, ...queue.pending].includes(promptId)) return server;
    }
    return undefined;
  }

  async function submit(request: ProviderRequest): Promise<SubmitOutcome> {
    if (servers.length === 0)
      return fail('no server is configured: set ATELIER_COMFYUI_URL', {
        retryable: false,
        cause: 'upstream_error',
      });
    const promptId = promptIdOf(request.taskId);
    if (request.reconcile) {
      const found = await findQueued(promptId, request.signal);
      if (found) return { kind: 'pending', upstreamId: `${found.key}:${promptId}`, progress: 0 };
    }
    const server = await chooseServer(undefined, request.signal);
    if ('kind' in server) return server;
    return queueOn(server, request, promptId);
  }

  /** The task again on another server (or the same, restarted): a pending answer with the new id. */
  async function move(request: ProviderRequest, from: Located, gone: boolean): Promise<PollOutcome> {
    from.server.socket.forget(from.promptId);
    const server = await chooseServer(gone ? from.server : undefined, request.signal);
    if ('kind' in server) {
      if (server.cause === 'rate_limited') return server;
      return fail(`the server that ran this task is gone and no other server can take it`, {
        retryable: true,
        maybeAccepted: false,
        cause: 'network',
      });
    }
    const queued = await queueOn(server, request, promptIdOf(`${request.taskId}:${server.key}`));
    if (queued.kind !== 'pending')
      return queued.kind === 'failed' ? { ...queued, maybeAccepted: false } : queued;
    return { kind: 'pending', status: 'queued', progress: 0, upstreamId: queued.upstreamId };
  }

  const runningProgress = (server: ComfyServer, promptId: string): number => {
    const known = server.socket.progressOf(promptId);
    if (!known || known.max === 0) return 5;
    return 5 + Math.floor((90 * known.value) / known.max);
  };

  /** The finished prompt's first image, copied from the server. */
  async function result(
    server: ComfyServer,
    promptId: string,
    signal: AbortSignal,
  ): Promise<PollOutcome | undefined> {
    const history = await api.history(server, promptId, signal);
    if (!('entry' in history)) return { ...history, maybeAccepted: false };
    const entry = history.entry;
    if (!entry) return undefined;
    if (entry.status === 'running')
      return { kind: 'pending', status: 'in_progress', progress: runningProgress(server, promptId) };
    if (entry.status === 'error') {
      server.socket.forget(promptId);
      return entry.interrupted && !entry.error
        ? fail('the prompt was interrupted', { retryable: false, cause: 'canceled' })
        : fail(entry.error ?? 'the prompt failed', { retryable: false, cause: 'invalid_request' });
    }
    const [image] = entry.images;
    if (!image)
      return fail('the workflow saved no image (it needs a SaveImage node)', {
        retryable: false,
        cause: 'bad_response',
      });
    const viewed = await api.view(server, image, signal);
    if ('kind' in viewed) return viewed;
    server.socket.forget(promptId);
    return { kind: 'done', image: { bytes: viewed.bytes } };
  }

  async function poll(request: ProviderRequest & { upstreamId: string }): Promise<PollOutcome> {
    const located = locate(request.upstreamId);
    if ('kind' in located) return located;
    const { server, promptId } = located;
    server.socket.touch();
    const known = server.socket.progressOf(promptId);
    if (known && server.socket.vouchesFor(promptId)) {
      if (known.state === 'queued') return { kind: 'pending', status: 'queued', progress: 0 };
      if (known.state === 'running')
        return { kind: 'pending', status: 'in_progress', progress: runningProgress(server, promptId) };
      if (known.state === 'error') {
        server.socket.forget(promptId);
        return fail(known.error ?? 'the prompt failed', { retryable: false, cause: 'invalid_request' });
      }
    }
    const finished = await result(server, promptId, request.signal);
    if (finished?.kind === 'failed' && unreachable(finished)) return move(request, located, true);
    if (finished) return finished;
    // Not in the history: waiting, running, or lost with a restart.
    const queue = await api.queue(server, request.signal);
    if (!('running' in queue)) return unreachable(queue) ? move(request, located, true) : queue;
    if (queue.running.includes(promptId))
      return { kind: 'pending', status: 'in_progress', progress: runningProgress(server, promptId) };
    if (queue.pending.includes(promptId)) return { kind: 'pending', status: 'queued', progress: 0 };
    return move(request, located, false);
  }

  async function cancel({ upstreamId, signal }: { upstreamId: string; signal: AbortSignal }): Promise<void> {
    const located = locate(upstreamId);
    if ('kind' in located) return;
    const { server, promptId } = located;
    server.socket.forget(promptId);
    const queue = await api.queue(server, signal);
    if (!('running' in queue)) return;
    if (queue.pending.includes(promptId))
      await api.call(server, '/queue', signal, JSON.stringify({ delete: [promptId] }));
    else if (queue.running.includes(promptId))
      await api.call(server, '/interrupt', signal, JSON.stringify({ prompt_id: promptId }));
  }

  /** Which workflows need a checkpoint file some server does not have (`GET /models/checkpoints`). */
  const checkModels: ImageProvider['checkModels'] = async (models, _apiKey, signal) => {
    const lists = await Promise.all(servers.map((server) => api.json(server, '/models/checkpoints', signal)));
    const answered = lists.flatMap((list) => ('json' in list && Array.isArray(list.json) ? [list.json] : []));
    if (answered.length === 0)
      return { error: `no ComfyUI server listed its checkpoints (${servers.length} asked)` };
    const present: string[] = [];
    const missing: string[] = [];
    for (const model of models) {
      // The route's own workflow and those of its edits and fusions.
      const { edit, fusion } = settings.get(model)?.workflows ?? {};
      const workflows = await Promise.all([model, edit, fusion].flatMap((f) => (f ? [files.load(f)] : [])));
      const ok = workflows.every(
        (workflow) =>
          typeof workflow !== 'string' &&
          checkpointsOf(workflow).every((file) => answered.every((list) => list.includes(file))),
      );
      (ok ? present : missing).push(model);
    }
    return { present, missing };
  };

  return {
    name: 'comfyui',
    requiresKey: false,
    submitsInline: true,
    pollIntervalMs: options.pollIntervalMs ?? 1000,
    expectedDurationMs: () => options.expectedDurationMs ?? 30_000,
    submit,
    poll,
    cancel,
    checkModels,
    configure(routes) {
      settings = routes;
    },
  };
}
