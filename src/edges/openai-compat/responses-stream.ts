import type { FastifyReply } from 'fastify';
import type { StoredResponse } from '../../capabilities/responses/index.js';
import type { TaskRecord } from '../../capabilities/tasks/index.js';
import { pngSize } from './image-stream.js';
import { echoOf, imageCallOf, responseOf } from './responses-answer.js';
import { imageCallIdOf } from './responses-request.js';
import type { ResponseRequests } from './responses-requests.js';
import { TaskEventStream } from './task-event-stream.js';

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
export class ResponseEventStream extends TaskEventStream {
  private readonly itemId: string;
  private sequence = 0;

  constructor(
    private readonly requests: ResponseRequests,
    private readonly input: ResponseStreamInput,
  ) {
    const taskId = input.stored.taskIds[0] ?? '';
    super(input.reply, taskId, requests, input.partialImages, 'response stream');
    this.itemId = imageCallIdOf(taskId);
  }

  /** Takes the reply over, sends the opening events and watches the task. */
  start(records: TaskRecord[]): void {
    const { stored, accountId } = this.input;
    this.open();
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
    this.watchTask(accountId, (stop) => this.input.onStop(stop));
  }

  private itemFields() {
    return { output_index: 0, item_id: this.itemId };
  }

  private send(event: string, data: object): void {
    if (this.closed) return;
    const body = { type: event, sequence_number: this.sequence++, ...data };
    this.raw.write(`event: ${event}\ndata: ${JSON.stringify(body)}\n\n`);
  }

  protected sendFrame(index: number, bytes: Buffer): void {
    const tool = echoOf(this.input.stored).tools[0];
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

  protected failRead(message: string): void {
    this.error('internal_error', message);
  }

  private error(code: string, message: string): void {
    this.send('error', { code, message, param: null });
  }

  protected async finish(): Promise<void> {
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
      this.error(
        'wait_timeout',
        `${this.whyUnfinished()}; it keeps rendering. GET /v1/responses/${stored.id} shows it`,
      );
    }
  }
}
