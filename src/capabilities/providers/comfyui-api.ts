/**
 * ComfyUI's HTTP API as the adapter uses it (ComfyUI's server.py; no authentication):
 * - `POST /prompt {prompt, client_id, prompt_id}` → `{prompt_id, number, node_errors}`; a workflow
 *   that fails validation is 400 `{error: {type, message, details}, node_errors: {<node id>:
 *   {errors: [{type, message, details}], class_type}}}` (a missing model file is `value_not_in_list`).
 * - `GET /prompt` → `{exec_info: {queue_remaining}}`; `GET /queue` → `{queue_running, queue_pending}`
 *   (items `[number, prompt_id, prompt, extra_data, outputs]`); `POST /queue {delete: [ids]}`;
 *   `POST /interrupt` (newer servers take `{prompt_id}` and stop only that prompt).
 * - `GET /history/{prompt_id}` → `{}` or `{<id>: {outputs: {<node>: {images: [{filename, subfolder,
 *   type}]}}, status: {status_str, completed, messages: [[event, data]]}}}`.
 * - `GET /view?filename=&subfolder=&type=`; `POST /upload/image` (multipart `image`, `subfolder`,
 *   `type`, `overwrite`) → `{name, subfolder, type}`; `GET /models/checkpoints` → file names.
 *
 * ComfyUI has no key, so its own error text (validation details, exception messages) names nothing
 * secret: it reaches the task's error, bounded in length.
 */
import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { type ComfySocket, executionErrorText } from './comfyui-socket.js';
import type { ProviderFailure } from './provider.js';
import { safeMessage } from './secret-scrub.js';
import {
  callUpstream,
  type FormData,
  newFormData,
  transportFailure,
  type UpstreamAnswer,
} from './upstream-call.js';
import { statusSentence } from './upstream-error-text.js';
import { failureFactory, statusClass } from './upstream-failures.js';
import { isRecord, parseJson } from './upstream-json.js';

export const comfyFailure = failureFactory('ComfyUI');

/** One server of the pool: its base URL, the short key task ids name it by, and its websocket. */
export interface ComfyServer {
  url: string;
  key: string;
  socket: ComfySocket;
}

export const serverKeyOf = (url: string): string =>
  createHash('sha256').update(url).digest('hex').slice(0, 10);

/** One file a prompt wrote: what `GET /view` takes. */
export interface OutputImage {
  filename: string;
  subfolder: string;
  type: string;
}

/** A prompt as `GET /history/{id}` tells it. */
export interface HistoryEntry {
  status: 'success' | 'error' | 'running';
  /** ComfyUI's words for an error (its `execution_error`), or of an interruption. */
  error?: string;
  interrupted: boolean;
  images: OutputImage[];
}

type Answer = Extract<UpstreamAnswer, { kind: 'response' }>;

/** The text of a 400 from `POST /prompt`: ComfyUI's error, then each node's errors. */
export function promptErrorText(json: unknown): string {
  if (!isRecord(json)) return 'the workflow was refused';
  const error = json.error;
  const head = isRecord(error)
    ? [error.message, error.details].filter((t) => typeof t === 'string' && t !== '').join(': ')
    : typeof error === 'string'
      ? error
      : 'the workflow was refused';
  const nodes = isRecord(json.node_errors) ? Object.entries(json.node_errors) : [];
  const details = nodes.flatMap(([id, node]) => {
    if (!isRecord(node) || !Array.isArray(node.errors)) return [];
    const who = `${typeof node.class_type === 'string' ? node.class_type : 'node'} (node ${id})`;
    return node.errors
      .filter(isRecord)
      .map(
        (e) =>
          `${who}: ${[e.message, e.details].filter((t) => typeof t === 'string' && t !== '').join(': ')}`,
      );
  });
  return [head, ...details].join('; ');
}

/** Reads one history entry (undefined when the server does not know the prompt). */
export function readHistory(json: unknown, promptId: string): HistoryEntry | undefined {
  const entry = isRecord(json) ? json[promptId] : undefined;
  if (!isRecord(entry)) return undefined;
  const status = isRecord(entry.status) ? entry.status : {};
  const messages = Array.isArray(status.messages) ? status.messages : [];
  const event = (name: string) =>
    messages.find(
      (m): m is [string, Record<string, unknown>] => Array.isArray(m) && m[0] === name && isRecord(m[1]),
    );
  const failed = event('execution_error');
  const interrupted = event('execution_interrupted') !== undefined;
  const images = Object.values(isRecord(entry.outputs) ? entry.outputs : {}).flatMap((output) =>
    isRecord(output) && Array.isArray(output.images)
      ? output.images.filter(
          (image): image is OutputImage =>
            isRecord(image) && typeof image.filename === 'string' && image.type !== 'temp',
        )
      : [],
  );
  const state =
    status.status_str === 'error' || failed || interrupted
      ? 'error'
      : status.status_str === 'success' || status.completed === true
        ? 'success'
        : 'running';
  return {
    status: state,
    ...(failed ? { error: executionErrorText(failed[1]) } : {}),
    interrupted,
    images: images.map((i) => ({
      filename: i.filename,
      subfolder: i.subfolder ?? '',
      type: i.type ?? 'output',
    })),
  };
}

export function createComfyApi({
  requestTimeoutMs,
  dispatcher,
}: {
  requestTimeoutMs: number;
  dispatcher: Dispatcher;
}) {
  const call = (server: ComfyServer, path: string, signal: AbortSignal, body?: string | FormData) =>
    callUpstream({
      url: `${server.url}${path}`,
      method: body === undefined ? 'GET' : 'POST',
      headers: typeof body === 'string' ? { 'content-type': 'application/json' } : {},
      ...(body === undefined ? {} : { body }),
      timeoutMs: requestTimeoutMs,
      signal,
      dispatcher,
    });

  /** The failure of a non-2xx answer (ComfyUI's own text for a refused workflow). */
  function httpFailure(answer: Answer): ProviderFailure {
    const { retryable, cause } = statusClass(answer.status);
    if (answer.status === 400) {
      return comfyFailure(safeMessage(promptErrorText(parseJson(answer.body))), {
        retryable: false,
        cause: 'invalid_request',
      });
    }
    return comfyFailure(`${statusSentence(answer.status)} (HTTP ${answer.status})`, { retryable, cause });
  }

  /** A JSON answer, or the failure of the call. */
  async function json(server: ComfyServer, path: string, signal: AbortSignal, body?: string | FormData) {
    const answer = await call(server, path, signal, body);
    // `maybeAccepted: false` on a read then says the server was not reached (refused, unresolvable).
    if (answer.kind === 'transport_error') return transportFailure('ComfyUI', answer);
    if (answer.status < 200 || answer.status >= 300) return httpFailure(answer);
    const parsed = parseJson(answer.body);
    if (parsed === undefined)
      return comfyFailure('the answer is not JSON', { retryable: true, cause: 'bad_response' });
    return { json: parsed };
  }

  return {
    call,
    httpFailure,
    json,
    /** Prompts waiting or running on the server (every client's). */
    async queueRemaining(server: ComfyServer, signal: AbortSignal): Promise<number | ProviderFailure> {
      const answer = await json(server, '/prompt', signal);
      if (!('json' in answer)) return answer;
      const info = isRecord(answer.json) && isRecord(answer.json.exec_info) ? answer.json.exec_info : {};
      return typeof info.queue_remaining === 'number' ? info.queue_remaining : 0;
    },
    /** The ids running and waiting on the server. */
    async queue(server: ComfyServer, signal: AbortSignal) {
      const answer = await json(server, '/queue', signal);
      if (!('json' in answer)) return answer;
      const ids = (items: unknown) =>
        Array.isArray(items)
          ? items.flatMap((item) => (Array.isArray(item) && typeof item[1] === 'string' ? [item[1]] : []))
          : [];
      const body = isRecord(answer.json) ? answer.json : {};
      return { running: ids(body.queue_running), pending: ids(body.queue_pending) };
    },
    async history(server: ComfyServer, promptId: string, signal: AbortSignal) {
      const answer = await json(server, `/history/${encodeURIComponent(promptId)}`, signal);
      if (!('json' in answer)) return answer;
      return { entry: readHistory(answer.json, promptId) };
    },
    /** Uploads one reference into the server's input folder; answers the LoadImage value. */
    async upload(server: ComfyServer, name: string, png: Buffer, signal: AbortSignal) {
      const form = newFormData();
      form.append('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), name);
      form.append('subfolder', 'atelier');
      form.append('type', 'input');
      form.append('overwrite', 'true');
      const answer = await json(server, '/upload/image', signal, form);
      if (!('json' in answer)) return answer;
      const body = isRecord(answer.json) ? answer.json : {};
      if (typeof body.name !== 'string')
        return comfyFailure('the upload answer names no file', { retryable: true, cause: 'bad_response' });
      return {
        image:
          typeof body.subfolder === 'string' && body.subfolder ? `${body.subfolder}/${body.name}` : body.name,
      };
    },
    async view(server: ComfyServer, image: OutputImage, signal: AbortSignal) {
      const query = new URLSearchParams({
        filename: image.filename,
        subfolder: image.subfolder,
        type: image.type,
      });
      const answer = await call(server, `/view?${query}`, signal);
      if (answer.kind === 'transport_error')
        return { ...transportFailure('ComfyUI', answer), maybeAccepted: false };
      if (answer.status !== 200) return httpFailure(answer);
      return { bytes: answer.body };
    },
  };
}

export type ComfyApi = ReturnType<typeof createComfyApi>;
