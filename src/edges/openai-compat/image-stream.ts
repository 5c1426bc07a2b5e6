import type { FastifyReply } from 'fastify';
import { InvalidInput } from '../../base/domain/errors.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { Account } from '../../capabilities/accounts/index.js';
import type { TaskChangeFeed, TasksService } from '../../capabilities/tasks/index.js';
import { MAX_PARTIAL_FRAMES } from '../../capabilities/tasks/index.js';
import type { BlobStore } from '../../infra/blobs/blob-store.js';
import { answerUsage, NO_USAGE } from './answer-usage.js';
import type { ImagePlan, ImageRequests } from './image-requests.js';
import { openAiErrorBody } from './openai-errors.js';
import { TaskEventStream } from './task-event-stream.js';

/** Which of OpenAI's event families a stream sends: generations or edits. */
export type StreamKind = 'image_generation' | 'image_edit';

/** What the request asked that the events echo (OpenAI's closed sets; anything else reads `auto`). */
export interface StreamEcho {
  quality?: string | null | undefined;
}

const QUALITIES = ['low', 'medium', 'high', 'auto'] as const;

/** The `partial_images` of a streamed request, 0 to 3 (OpenAI's range); refusals name the field. */
export function partialImagesOf(value: number | null | undefined): number {
  if (value === null || value === undefined) return 0;
  if (!Number.isInteger(value) || value < 0 || value > MAX_PARTIAL_FRAMES)
    throw new InvalidInput(
      `partial_images must be an integer from 0 to ${MAX_PARTIAL_FRAMES}`,
      'partial_images',
    );
  return value;
}

/** Width and height of a PNG, from its header chunk (the frames are PNG). */
export function pngSize(bytes: Buffer): string | undefined {
  if (bytes.length < 24 || bytes.readUInt32BE(12) !== 0x49484452) return undefined;
  return `${bytes.readUInt32BE(16)}x${bytes.readUInt32BE(20)}`;
}

/** What the image streams are built over. */
interface ImageStreamDeps {
  images: Pick<ImageRequests, 'submit' | 'base64Of'>;
  feed: TaskChangeFeed;
  tasks: TasksService;
  blobs: BlobStore;
  clock: Clock;
  waitMs: number;
}

/** One streamed request: where it answers, what it asks, and how the server's close reaches it. */
interface StreamRequest {
  reply: FastifyReply;
  account: Account;
  plan: ImagePlan;
  imageUrls: string[];
  kind: StreamKind;
  echo: StreamEcho;
  onStop(stop: () => void): () => void;
}

/**
 * OpenAI's image event stream (`stream: true`, docs/openai-compat.md#streaming): the request's
 * one task is submitted with its `partial_images`; each partial frame the engine stores (on any
 * node: a blob, announced on the task change feed) is sent as `<kind>.partial_image`, then the
 * image as `<kind>.completed` with `usage`. A failure after the stream began is an `error` event
 * (what OpenAI's SDK turns into an APIError), then the end.
 */
export function createImageStreams(deps: ImageStreamDeps) {
  return {
    /**
     * True when the request asks for a stream: then its plan takes the `partial_images`, and what a
     * stream cannot carry is refused before anything is made (OpenAI streams one image: n > 1).
     */
    prepare(
      plan: ImagePlan,
      fields: { stream?: boolean | null | undefined; partial_images?: number | null | undefined },
    ): boolean {
      if (fields.stream !== true) return false;
      if (plan.count > 1)
        throw new InvalidInput('n must be 1 when stream is true: a stream carries one image', 'n');
      plan.partialImages = partialImagesOf(fields.partial_images);
      return true;
    },

    /**
     * Submits the plan and streams its image. Errors before the stream starts (refusals, quota)
     * are ordinary error answers; `onStop` receives the function that ends the stream (the server
     * closes).
     */
    async stream(input: StreamRequest): Promise<void> {
      const { ids } = await deps.images.submit(input.account, input.plan, input.imageUrls);
      new ImageEventStream(deps, input, ids).start();
    },
  };
}

export type ImageStreams = ReturnType<typeof createImageStreams>;

/**
 * The event stream of one submitted task (task-event-stream.ts): `<kind>.partial_image` per frame,
 * then `<kind>.completed` with `usage`, or an `error` event in OpenAI's shape.
 */
class ImageEventStream extends TaskEventStream {
  private readonly quality: (typeof QUALITIES)[number];

  constructor(
    private readonly deps: ImageStreamDeps,
    private readonly input: StreamRequest,
    ids: string[],
  ) {
    super(
      input.reply,
      ids[0] ?? '',
      { watching: { feed: deps.feed, tasks: deps.tasks }, blobs: deps.blobs, waitMs: deps.waitMs },
      input.plan.partialImages ?? 0,
      'image stream',
    );
    this.quality = QUALITIES.find((q) => q === input.echo.quality?.trim()) ?? 'auto';
  }

  /** Takes the reply over, opens the stream and watches the task. */
  start(): void {
    this.open();
    this.watchTask(this.input.account.id, (stop) => this.input.onStop(stop));
  }

  /** The fields every image event carries. Every image of the catalog is opaque (transparent is refused). */
  private common() {
    return {
      background: 'opaque',
      created_at: Math.floor(this.deps.clock.now() / 1000),
      quality: this.quality,
    };
  }

  private send(event: string, data: object): void {
    if (!this.closed)
      this.raw.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  }

  private fail(status: number, code: string, message: string): void {
    this.send('error', openAiErrorBody(status, code, message));
  }

  protected failRead(message: string): void {
    this.fail(500, 'internal_error', message);
  }

  protected sendFrame(index: number, bytes: Buffer): void {
    this.send(`${this.input.kind}.partial_image`, {
      b64_json: bytes.toString('base64'),
      ...this.common(),
      output_format: 'png',
      partial_image_index: index,
      size: pngSize(bytes) ?? 'auto',
    });
  }

  protected async finish(): Promise<void> {
    const { final, taskId } = this;
    if (final?.status === 'completed') {
      const b64 = await this.deps.images.base64Of(final);
      const usage = (await answerUsage(this.deps.tasks, [final])) ?? NO_USAGE;
      this.send(`${this.input.kind}.completed`, {
        b64_json: b64,
        ...this.common(),
        output_format: final.contentType?.replace(/^image\//, '') ?? 'png',
        size: final.width && final.height ? `${final.width}x${final.height}` : 'auto',
        usage,
      });
    } else if (final) {
      this.fail(
        502,
        'generation_failed',
        `Image generation failed: ${final.error ?? 'Task failed'} (task id: ${taskId})`,
      );
    } else if (!this.closed) {
      this.fail(
        504,
        'wait_timeout',
        `${this.whyUnfinished()}; it keeps rendering. Poll GET /api/v1/tasks/${taskId}`,
      );
    }
  }
}
