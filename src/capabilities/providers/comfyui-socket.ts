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

type Execution = Record<string, unknown>;

/** Moves a prompt's known state by one execution message of the socket. */
function applyMessage(known: PromptProgress, type: string, data: Execution): void {
  switch (type) {
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

/** The websocket of one server (`http(s)://host` → `ws(s)://host/ws?clientId=`). */
export class ComfyPromptSocket implements ComfySocket {
  readonly clientId = randomUUID().replaceAll('-', '');
  private readonly url: string;
  private readonly prompts = new Map<string, PromptProgress>();
  private socket: WebSocket | undefined;
  // A counter orders openings and watches: a prompt watched after the opening was seen whole.
  private seq = 0;
  private opened = 0;
  private idle: NodeJS.Timeout | undefined;
  private waiters: Array<(open: boolean) => void> = [];

  constructor(
    baseUrl: string,
    private readonly options: { idleMs: number },
  ) {
    this.url = `${baseUrl.replace(/^http/, 'ws')}/ws?clientId=${this.clientId}`;
  }

  touch(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => this.close(), this.options.idleMs);
    this.idle.unref();
    if (this.socket) return;
    const next = new WebSocket(this.url);
    this.socket = next;
    next.binaryType = 'arraybuffer';
    next.addEventListener('open', () => {
      if (this.socket !== next) return;
      this.opened = ++this.seq;
      this.settle(true);
    });
    next.addEventListener('message', (event) => {
      if (typeof event.data === 'string') this.onMessage(event.data);
    });
    const dropped = () => {
      if (this.socket !== next) return;
      this.socket = undefined;
      this.opened = 0;
      this.settle(false);
    };
    next.addEventListener('close', dropped);
    next.addEventListener('error', dropped);
  }

  ready(timeoutMs: number): Promise<boolean> {
    this.touch();
    if (this.isOpen()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((wake) => wake !== done);
        resolve(false);
      }, timeoutMs);
      timer.unref();
      const done = (open: boolean) => {
        clearTimeout(timer);
        resolve(open);
      };
      this.waiters.push(done);
    });
  }

  vouchesFor(promptId: string): boolean {
    const known = this.prompts.get(promptId);
    return known !== undefined && known.watchedAt > 0 && this.isOpen() && known.watchedAt >= this.opened;
  }

  watch(promptId: string): void {
    const known = this.entry(promptId);
    if (known) known.watchedAt = ++this.seq;
  }

  progressOf(promptId: string): PromptProgress | undefined {
    return this.prompts.get(promptId);
  }

  forget(promptId: string): void {
    this.prompts.delete(promptId);
  }

  close(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
    const open = this.socket;
    this.socket = undefined;
    this.opened = 0;
    this.settle(false);
    open?.close();
  }

  private isOpen(): boolean {
    return this.opened > 0 && this.socket?.readyState === WebSocket.OPEN;
  }

  private settle(open: boolean): void {
    for (const wake of this.waiters) wake(open);
    this.waiters = [];
  }

  private entry(promptId: unknown): PromptProgress | undefined {
    if (typeof promptId !== 'string') return undefined;
    let known = this.prompts.get(promptId);
    if (!known) {
      known = { state: 'queued', value: 0, max: 0, nodesDone: 0, watchedAt: 0 };
      this.prompts.set(promptId, known);
      if (this.prompts.size > MAX_WATCHED) this.prompts.delete(this.prompts.keys().next().value as string);
    }
    return known;
  }

  private onMessage(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (!isRecord(message) || !isRecord(message.data) || typeof message.type !== 'string') return;
    const { data } = message;
    const known = this.entry(data.prompt_id);
    if (!known || known.state === 'success' || known.state === 'error' || known.state === 'interrupted')
      return;
    applyMessage(known, message.type, data);
  }
}

/** The websocket of one server, opened on demand. */
export function createComfySocket(baseUrl: string, options: { idleMs: number }): ComfySocket {
  return new ComfyPromptSocket(baseUrl, options);
}
