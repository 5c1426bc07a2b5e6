/**
 * One ComfyUI server's websocket (`/ws?clientId=`), as ComfyUI's own client reads it: JSON text
 * frames `{ type, data }` — `status`, `execution_start`, `execution_cached`, `executing`
 * (`node: null` when a prompt ends), `progress` `{ value, max }`, `executed`, `execution_success`,
 * `execution_error`, `execution_interrupted` — and binary preview frames (ignored). ComfyUI sends a
 * prompt's execution messages only to the client id it was queued with, so every prompt this
 * process queues on a server carries the socket's client id.
 *
 * The socket is opened when a prompt is queued or polled and closed after a quiet spell; a dropped
 * socket leaves the prompts it knew in place, and the adapter reads `GET /history/{id}` for any
 * prompt the socket cannot vouch for (connected from before the prompt was queued).
 */
import { randomUUID } from 'node:crypto';
import { isRecord } from './upstream-json.js';

/** What the socket has said of one prompt. */
export interface PromptProgress {
  state: 'queued' | 'running' | 'success' | 'error' | 'interrupted';
  /** The sampler's step and step count, from the last `progress` message. */
  value: number;
  max: number;
  /** Execution messages seen (`execution_cached` counts its nodes): a coarse move while no sampler runs. */
  nodesDone: number;
  /** From `execution_error`: ComfyUI's own words. */
  error?: string;
  /** When this process queued it, on the socket's counter (0: seen only on the socket). */
  watchedAt: number;
}

export interface ComfySocket {
  readonly clientId: string;
  /** Opens the socket if it is not open or opening; every call keeps it open a while longer. */
  touch(): void;
  /** Resolves true once the socket is open, false if it is not within `timeoutMs`. */
  ready(timeoutMs: number): Promise<boolean>;
  /**
   * true when the socket has been open since the prompt was queued: every message of it was seen,
   * so its state needs no `GET /history`.
   */
  vouchesFor(promptId: string): boolean;
  /** Marks a prompt as queued on this socket's client id (now). */
  watch(promptId: string): void;
  progressOf(promptId: string): PromptProgress | undefined;
  forget(promptId: string): void;
  close(): void;
}

const MAX_WATCHED = 10_000;

/** The error text of an `execution_error` (or a history's): node, exception type and message. */
export function executionErrorText(data: Record<string, unknown>): string {
  const node = typeof data.node_type === 'string' ? data.node_type : 'a node';
  const id = typeof data.node_id === 'string' ? ` (node ${data.node_id})` : '';
  const type = typeof data.exception_type === 'string' ? `${data.exception_type}: ` : '';
  const message = typeof data.exception_message === 'string' ? data.exception_message : 'failed';
  return `${node}${id} failed: ${type}${message}`;
}

/** The websocket of one server (`http(s)://host` → `ws(s)://host/ws?clientId=`). */
export function createComfySocket(baseUrl: string, options: { idleMs: number }): ComfySocket {
  const clientId = randomUUID().replaceAll('-', '');
  const url = `${baseUrl.replace(/^http/, 'ws')}/ws?clientId=${clientId}`;
  const prompts = new Map<string, PromptProgress>();
  let socket: WebSocket | undefined;
  // A counter orders openings and watches: a prompt watched after the opening was seen whole.
  let seq = 0;
  let opened = 0;
  let idle: NodeJS.Timeout | undefined;
  let waiters: Array<(open: boolean) => void> = [];
  const settle = (open: boolean) => {
    for (const wake of waiters) wake(open);
    waiters = [];
  };

  const entry = (promptId: unknown): PromptProgress | undefined => {
    if (typeof promptId !== 'string') return undefined;
    let known = prompts.get(promptId);
    if (!known) {
      known = { state: 'queued', value: 0, max: 0, nodesDone: 0, watchedAt: 0 };
      prompts.set(promptId, known);
      if (prompts.size > MAX_WATCHED) prompts.delete(prompts.keys().next().value as string);
    }
    return known;
  };

  function onMessage(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (!isRecord(message) || !isRecord(message.data) || typeof message.type !== 'string') return;
    const { data } = message;
    const known = entry(data.prompt_id);
    if (!known || known.state === 'success' || known.state === 'error' || known.state === 'interrupted')
      return;
    switch (message.type) {
      case 'execution_start':
        known.state = 'running';
        break;
      case 'execution_cached':
        known.state = 'running';
        known.nodesDone += Array.isArray(data.nodes) ? data.nodes.length : 0;
        break;
      case 'executing':
        // `node: null` ends the prompt (servers older than `execution_success` send only this).
        if (data.node === null) known.state = 'success';
        else {
          known.state = 'running';
          known.nodesDone += 1;
        }
        break;
      case 'progress':
        known.state = 'running';
        if (typeof data.value === 'number' && typeof data.max === 'number' && data.max > 0) {
          known.value = data.value;
          known.max = data.max;
        }
        break;
      case 'execution_success':
        known.state = 'success';
        break;
      case 'execution_error':
        known.state = 'error';
        known.error = executionErrorText(data);
        break;
      case 'execution_interrupted':
        known.state = 'interrupted';
        break;
      default:
        break;
    }
  }

  function close(): void {
    if (idle) clearTimeout(idle);
    idle = undefined;
    const open = socket;
    socket = undefined;
    opened = 0;
    settle(false);
    open?.close();
  }

  const isOpen = () => opened > 0 && socket?.readyState === WebSocket.OPEN;

  function touch(): void {
    if (idle) clearTimeout(idle);
    idle = setTimeout(close, options.idleMs);
    idle.unref();
    if (socket) return;
    const next = new WebSocket(url);
    socket = next;
    next.binaryType = 'arraybuffer';
    next.addEventListener('open', () => {
      if (socket !== next) return;
      opened = ++seq;
      settle(true);
    });
    next.addEventListener('message', (event) => {
      if (typeof event.data === 'string') onMessage(event.data);
    });
    const dropped = () => {
      if (socket !== next) return;
      socket = undefined;
      opened = 0;
      settle(false);
    };
    next.addEventListener('close', dropped);
    next.addEventListener('error', dropped);
  }

  return {
    clientId,
    touch,
    ready(timeoutMs) {
      touch();
      if (isOpen()) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((wake) => wake !== done);
          resolve(false);
        }, timeoutMs);
        timer.unref();
        const done = (open: boolean) => {
          clearTimeout(timer);
          resolve(open);
        };
        waiters.push(done);
      });
    },
    vouchesFor(promptId) {
      const known = prompts.get(promptId);
      return known !== undefined && known.watchedAt > 0 && isOpen() && known.watchedAt >= opened;
    },
    watch(promptId) {
      const known = entry(promptId);
      if (known) known.watchedAt = ++seq;
    },
    progressOf: (promptId) => prompts.get(promptId),
    forget: (promptId) => void prompts.delete(promptId),
    close,
  };
}
