/**
 * The ComfyUI adapter's pool of servers: which server takes a prompt, queueing it there, reading its
 * state (from the server's websocket, else its history and queue), moving it when its server is gone,
 * and cancelling it. comfyui-provider.ts describes the whole adapter.
 */
import { createHash } from 'node:crypto';
import { sharp } from '../../infra/images/sharp.js';
import { type ComfyApi, type ComfyServer, comfyFailure as fail } from './comfyui-api.js';
import {
  type ComfyRouteSettings,
  checkpointsOf,
  fillWorkflow,
  type WorkflowFiles,
} from './comfyui-workflow.js';
import type {
  ModelPresence,
  PollOutcome,
  ProviderFailure,
  ProviderRequest,
  SubmitOutcome,
} from './provider.js';
import { seedForTask } from './replicate-inputs.js';
import { isRecord } from './upstream-json.js';

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

const runningProgress = (server: ComfyServer, promptId: string): number => {
  const known = server.socket.progressOf(promptId);
  if (!known || known.max === 0) return 5;
  return 5 + Math.floor((90 * known.value) / known.max);
};

/** What a pool is built from. */
export interface ComfyPoolParts {
  api: ComfyApi;
  files: WorkflowFiles;
  servers: ComfyServer[];
  /** Prompts one server may hold at once, running and waiting. */
  maxQueue: number;
  /** How long a submit waits for the socket to open before queueing without it. */
  socketWaitMs: number;
}

export class ComfyPool {
  /** The catalog's `comfyui` blocks, by workflow (upstream model). */
  routes: ReadonlyMap<string, ComfyRouteSettings> = new Map();
  private turn = 0;
  private readonly api: ComfyApi;
  private readonly files: WorkflowFiles;
  private readonly servers: ComfyServer[];

  constructor(private readonly parts: ComfyPoolParts) {
    this.api = parts.api;
    this.files = parts.files;
    this.servers = parts.servers;
  }

  /** Queues the task's prompt on the server with room (or finds the one a lost answer queued). */
  async submit(request: ProviderRequest): Promise<SubmitOutcome> {
    if (this.servers.length === 0)
      return fail('no server is configured: set ATELIER_COMFYUI_URL', {
        retryable: false,
        cause: 'upstream_error',
      });
    const promptId = promptIdOf(request.taskId);
    if (request.reconcile) {
      const found = await this.findQueued(promptId, request.signal);
      if (found) return { kind: 'pending', upstreamId: `${found.key}:${promptId}`, progress: 0 };
    }
    const server = await this.chooseServer(undefined, request.signal);
    if ('kind' in server) return server;
    return this.queueOn(server, request, promptId);
  }

  /** The prompt's state: from the socket where it vouches for it, else the history and the queue. */
  async poll(request: ProviderRequest & { upstreamId: string }): Promise<PollOutcome> {
    const located = this.locate(request.upstreamId);
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
    const finished = await this.result(server, promptId, request.signal);
    if (finished?.kind === 'failed' && unreachable(finished)) return this.move(request, located, true);
    if (finished) return finished;
    // Not in the history: waiting, running, or lost with a restart.
    const queue = await this.api.queue(server, request.signal);
    if (!('running' in queue)) return unreachable(queue) ? this.move(request, located, true) : queue;
    if (queue.running.includes(promptId))
      return { kind: 'pending', status: 'in_progress', progress: runningProgress(server, promptId) };
    if (queue.pending.includes(promptId)) return { kind: 'pending', status: 'queued', progress: 0 };
    return this.move(request, located, false);
  }

  /** Deletes a waiting prompt, or interrupts the running one. */
  async cancel({ upstreamId, signal }: { upstreamId: string; signal: AbortSignal }): Promise<void> {
    const located = this.locate(upstreamId);
    if ('kind' in located) return;
    const { server, promptId } = located;
    server.socket.forget(promptId);
    const queue = await this.api.queue(server, signal);
    if (!('running' in queue)) return;
    if (queue.pending.includes(promptId))
      await this.api.call(server, '/queue', signal, JSON.stringify({ delete: [promptId] }));
    else if (queue.running.includes(promptId))
      await this.api.call(server, '/interrupt', signal, JSON.stringify({ prompt_id: promptId }));
  }

  /** Which workflows need a checkpoint file some server does not have (`GET /models/checkpoints`). */
  async checkModels(models: readonly string[], signal: AbortSignal): Promise<ModelPresence> {
    const { api, files, servers } = this;
    const lists = await Promise.all(servers.map((server) => api.json(server, '/models/checkpoints', signal)));
    const answered = lists.flatMap((list) => ('json' in list && Array.isArray(list.json) ? [list.json] : []));
    if (answered.length === 0)
      return { error: `no ComfyUI server listed its checkpoints (${servers.length} asked)` };
    const present: string[] = [];
    const missing: string[] = [];
    for (const model of models) {
      // The route's own workflow and those of its edits and fusions.
      const { edit, fusion } = this.routes.get(model)?.workflows ?? {};
      const workflows = await Promise.all([model, edit, fusion].flatMap((f) => (f ? [files.load(f)] : [])));
      const ok = workflows.every(
        (workflow) =>
          typeof workflow !== 'string' &&
          checkpointsOf(workflow).every((file) => answered.every((list) => list.includes(file))),
      );
      (ok ? present : missing).push(model);
    }
    return { present, missing };
  }

  private locate(upstreamId: string): Located | ProviderFailure {
    const colon = upstreamId.indexOf(':');
    const server = this.servers.find((s) => s.key === upstreamId.slice(0, colon));
    if (colon < 1 || !server) {
      return fail('the server that took this task is no longer in ATELIER_COMFYUI_URL', {
        retryable: false,
        cause: 'upstream_error',
      });
    }
    return { server, promptId: upstreamId.slice(colon + 1) };
  }

  /** The server with the shortest queue under the bound, round robin between equals. */
  private async chooseServer(
    excluded: ComfyServer | undefined,
    signal: AbortSignal,
  ): Promise<ComfyServer | ProviderFailure> {
    const { maxQueue } = this.parts;
    const candidates = this.servers.filter((s) => s !== excluded);
    const queues = await Promise.all(candidates.map((s) => this.api.queueRemaining(s, signal)));
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
    this.turn = (this.turn + 1) % 1_000_000;
    return (best[this.turn % best.length] ?? open[0] ?? { server: candidates[0] as ComfyServer }).server;
  }

  /** The request's references as PNGs of the target size, uploaded; answers the LoadImage values. */
  private async uploadReferences(
    server: ComfyServer,
    request: ProviderRequest,
  ): Promise<string[] | ProviderFailure> {
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
      const uploaded = await this.api.upload(server, `${request.taskId}-${i + 1}.png`, png, request.signal);
      if ('kind' in uploaded) return { ...uploaded, maybeAccepted: false };
      names.push(uploaded.image);
    }
    return names;
  }

  /** Queues the task's prompt on `server`. */
  private async queueOn(
    server: ComfyServer,
    request: ProviderRequest,
    promptId: string,
  ): Promise<SubmitOutcome> {
    const route = this.routes.get(request.upstreamModel) ?? {};
    const file =
      (request.mode === 'text' ? undefined : route.workflows?.[request.mode]) ?? request.upstreamModel;
    const workflow = await this.files.load(file);
    if (typeof workflow === 'string') return fail(workflow, { retryable: false, cause: 'invalid_request' });
    const images = await this.uploadReferences(server, request);
    if (!Array.isArray(images)) return images;
    const filled = fillWorkflow(workflow, route, {
      prompt: request.prompt,
      width: request.width,
      height: request.height,
      // The request's seed (routes with `seeds: true`), else one derived from the task id.
      seed: request.seed ?? seedForTask(request.taskId, { minimum: 0, maximum: 2 ** 32 - 1 }),
      images,
    });
    if (typeof filled === 'string')
      return fail(`${file}: ${filled}`, { retryable: false, cause: 'invalid_request' });
    // Opened first, so that every message of the prompt is seen (else the polls read its history).
    await server.socket.ready(this.parts.socketWaitMs);
    const body = JSON.stringify({ prompt: filled, client_id: server.socket.clientId, prompt_id: promptId });
    const answer = await this.api.json(server, '/prompt', request.signal, body);
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
  private async findQueued(promptId: string, signal: AbortSignal): Promise<ComfyServer | undefined> {
    for (const server of this.servers) {
      const [queue, history] = await Promise.all([
        this.api.queue(server, signal),
        this.api.history(server, promptId, signal),
      ]);
      if ('entry' in history && history.entry) return server;
      if ('running' in queue && [...queue.running, ...queue.pending].includes(promptId)) return server;
    }
    return undefined;
  }

  /** The task again on another server (or the same, restarted): a pending answer with the new id. */
  private async move(request: ProviderRequest, from: Located, gone: boolean): Promise<PollOutcome> {
    from.server.socket.forget(from.promptId);
    const server = await this.chooseServer(gone ? from.server : undefined, request.signal);
    if ('kind' in server) {
      if (server.cause === 'rate_limited') return server;
      return fail(`the server that ran this task is gone and no other server can take it`, {
        retryable: true,
        maybeAccepted: false,
        cause: 'network',
      });
    }
    const queued = await this.queueOn(server, request, promptIdOf(`${request.taskId}:${server.key}`));
    if (queued.kind !== 'pending')
      return queued.kind === 'failed' ? { ...queued, maybeAccepted: false } : queued;
    return { kind: 'pending', status: 'queued', progress: 0, upstreamId: queued.upstreamId };
  }

  /** The finished prompt's first image, copied from the server. */
  private async result(
    server: ComfyServer,
    promptId: string,
    signal: AbortSignal,
  ): Promise<PollOutcome | undefined> {
    const history = await this.api.history(server, promptId, signal);
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
    const viewed = await this.api.view(server, image, signal);
    if ('kind' in viewed) return viewed;
    server.socket.forget(promptId);
    return { kind: 'done', image: { bytes: viewed.bytes } };
  }
}
