import type { FastifyReply } from 'fastify';
import { isFinalStatus } from '../../base/domain/task-status.js';
import type { StoredResponse } from '../../capabilities/responses/index.js';
import type { TaskRecord } from '../../capabilities/tasks/index.js';
import { partialFrameKey, watchTasks } from '../../capabilities/tasks/index.js';
import { pngSize } from './image-stream.js';
import { echoOf, imageCallOf, responseOf } from './responses-answer.js';
import { imageCallIdOf } from './responses-request.js';
import type { ResponseRequests } from './responses-requests.js';

const HEARTBEAT_MS = 15_000;

/** One streamed response: where it answers, the response started, and how the server's close reaches it. */
export interface ResponseStreamInput {
  reply: FastifyReply;
  accountId: string;
  stored: StoredResponse;
  partialImages: number;
  onStop(stop: () => void): () => void;
}

/**
 * The Responses API's event stream (`stream: true`), as OpenAI's SDK reads it
 * (`ResponseStreamEvent`): response.created, response.in_progress, response.output_item.added,
 * response.image_generation_call.in_progress and .generating, one .partial_image per partial frame
 * the engine stores (up to the tool's partial_images), then .completed, response.output_item.done
 * and response.completed — or response.failed when the image failed, or an `error` event when it
 * was not ready in time (or the server closes). Every event carries its `sequence_number`.
 */
export class ResponseEventStream {
  private readonly raw: FastifyReply['raw'];
  private readonly taskId: string;
  private readonly itemId: string;
  private sequence = 0;
  private closed = false;
  private closing = false;
  private sentFrames = 0;
  private final: TaskRecord | undefined;
  private queue = Promise.resolve();
  private watch: { stop(): void } | undefined;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private unregister: () => void = () => {};

  constructor(
    private readonly requests: ResponseRequests,
    private readonly input: ResponseStreamInput,
  ) {
    this.raw = input.reply.raw;
    this.taskId = input.stored.taskIds[0] ?? '';
    this.itemId = imageCallIdOf(this.taskId);
  }

  /** Takes the reply over, sends the opening events and watches the task. */
  start(records: TaskRecord[]): void {
    const { reply, stored, accountId } = this.input;
    reply.hijack();
    this.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      'x-request-id': reply.request.id,
    });
    const opening = { ...responseOf(stored, records, undefined), status: 'in_progress' as const, output: [] };
    this.send('response.created', { response: opening });
    this.send('response.in_progress', { response: opening });
    const [record] = records;
    if (record) {
      const item = { ...imageCallOf(echoOf(stored), record, undefined), status: 'in_progress' };
      this.send('response.output_item.added', { output_index: 0, item });
    }
    this.send('response.image_generation_call.in_progress', this.itemFields());
    this.send('response.image_generation_call.generating', this.itemFields());
    const partials = this.input.partialImages;
    this.watch = watchTasks(this.requests.watching, accountId, stored.taskIds, {
      timeoutMs: this.requests.waitMs,
      ...(partials > 0
        ? { onPartialFrames: (_id: string, frames: number) => this.later(() => this.sendFrames(frames)) }
        : {}),
      onRecord: (changed) => {
        if (!isFinalStatus(changed.status)) return false;
        this.final = changed;
        return true;
      },
      onEnd: () => this.onEnd(),
    });
    this.raw.once('close', this.gone);
    this.unregister = this.input.onStop(() => {
      this.closing = true;
      this.watch?.stop();
    });
    this.heartbeat = setInterval(() => !this.closed && this.raw.write(': keep-alive\n\n'), HEARTBEAT_MS);
  }

  private readonly gone = () => {
    this.closed = true;
    this.watch?.stop();
  };

  private itemFields() {
    return { output_index: 0, item_id: this.itemId };
  }

  private send(event: string, data: object): void {
    if (this.closed) return;
    const body = { type: event, sequence_number: this.sequence++, ...data };
    this.raw.write(`event: ${event}\ndata: ${JSON.stringify(body)}\n\n`);
  }

  /** Runs `work` after what is already queued: events leave in order. */
  private later(work: () => Promise<void>): void {
    this.queue = this.queue.then(work).catch((error: unknown) => {
      this.input.reply.request.log.warn({ err: error, taskId: this.taskId }, 'response stream event failed');
    });
  }

  private async sendFrames(frames: number): Promise<void> {
    const tool = echoOf(this.input.stored).tools[0];
    while (!this.final && this.sentFrames < Math.min(frames, this.input.partialImages)) {
      const index = this.sentFrames++;
      // Gone when the task ended meanwhile: its completed events follow.
      const bytes = await this.requests.blobs.get(partialFrameKey(this.taskId, index));
      if (!bytes || this.final) continue;
      this.send('response.image_generation_call.partial_image', {
        ...this.itemFields(),
        partial_image_b64: bytes.toString('base64'),
        partial_image_index: index,
        background: 'opaque',
        output_format: 'png',
        quality: tool?.quality ?? 'auto',
        size: pngSize(bytes) ?? 'auto',
      });
    }
  }

  private onEnd(): void {
    this.later(() =>
      this.finish().catch((error: unknown) => {
        const { taskId } = this;
        this.input.reply.request.log.error(
          { err: error, taskId },
          'response stream could not send its image',
        );
        this.error('internal_error', `The image could not be read (task id: ${taskId})`);
      }),
    );
    this.later(async () => this.end());
  }

  private error(code: string, message: string): void {
    this.send('error', { code, message, param: null });
  }

  private async finish(): Promise<void> {
    const { final } = this;
    const { stored } = this.input;
    if (final) {
      const records = [final];
      const response = responseOf(stored, records, await this.requests.results(records));
      const [item] = response.output;
      if (final.status === 'completed')
        this.send('response.image_generation_call.completed', this.itemFields());
      this.send('response.output_item.done', { output_index: 0, item });
      this.send(final.status === 'completed' ? 'response.completed' : 'response.failed', { response });
    } else if (!this.closed) {
      const why = this.closing
        ? 'The server is closing'
        : `The image was not ready within ${this.requests.waitMs / 1000} s`;
      this.error('wait_timeout', `${why}; it keeps rendering. GET /v1/responses/${stored.id} shows it`);
    }
  }

  private end(): void {
    clearInterval(this.heartbeat);
    this.unregister();
    this.raw.off('close', this.gone);
    if (!this.closed) this.raw.end();
    this.closed = true;
  }
}
