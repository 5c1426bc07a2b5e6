import type { FastifyReply } from 'fastify';
import { InvalidInput } from '../../base/domain/errors.js';
import { isFinalStatus } from '../../base/domain/task-status.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { Account } from '../../capabilities/accounts/index.js';
import type { TaskChangeFeed, TaskRecord, TasksService } from '../../capabilities/tasks/index.js';
import { MAX_PARTIAL_FRAMES, partialFrameKey, watchTasks } from '../../capabilities/tasks/index.js';
import type { BlobStore } from '../../infra/blobs/blob-store.js';
import { answerUsage, NO_USAGE } from './answer-usage.js';
import type { ImagePlan, ImageRequests } from './image-requests.js';
import { openAiErrorBody } from './openai-errors.js';

/** Which of OpenAI's event families a stream sends: generations or edits. */
export type StreamKind = 'image_generation' | 'image_edit';

/** What the request asked that the events echo (OpenAI's closed sets; anything else reads `auto`). */
export interface StreamEcho {
  quality?: string | null | undefined;
}

const QUALITIES = ['low', 'medium', 'high', 'auto'] as const;
const HEARTBEAT_MS = 15_000;

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
 * The event stream of one submitted task: partial frames as the feed announces them, then the
 * image (or an `error` event), then the end; a heartbeat comment keeps proxies from closing it.
 */
class ImageEventStream {
  private readonly raw: FastifyReply['raw'];
  private readonly taskId: string;
  private readonly partialImages: number;
  private readonly quality: (typeof QUALITIES)[number];
  private closed = false;
  private closing = false;
  private sentFrames = 0;
  private final: TaskRecord | undefined;
  private queue = Promise.resolve();
  private watch: { stop(): void } | undefined;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private unregister: () => void = () => {};

  constructor(
    private readonly deps: ImageStreamDeps,
    private readonly input: StreamRequest,
    private readonly ids: string[],
  ) {
    this.raw = input.reply.raw;
    this.taskId = ids[0] ?? '';
    this.partialImages = input.plan.partialImages ?? 0;
    this.quality = QUALITIES.find((q) => q === input.echo.quality?.trim()) ?? 'auto';
  }

  /** Takes the reply over, opens the stream and watches the task. */
  start(): void {
    const { reply } = this.input;
    reply.hijack();
    this.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      'x-request-id': reply.request.id,
    });
    const watching = { feed: this.deps.feed, tasks: this.deps.tasks };
    this.watch = watchTasks(watching, this.input.account.id, this.ids, {
      timeoutMs: this.deps.waitMs,
      ...(this.partialImages > 0
        ? {
            onPartialFrames: (_id: string, frames: number) => this.later(() => this.sendFrames(frames)),
          }
        : {}),
      onRecord: (record) => {
        if (!isFinalStatus(record.status)) return false;
        this.final = record;
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

  /** The caller went away: nothing more is written. */
  private readonly gone = () => {
    this.closed = true;
    this.watch?.stop();
  };

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

  /** Runs `work` after what is already queued: events leave in order. */
  private later(work: () => Promise<void>): void {
    this.queue = this.queue.then(work).catch((error: unknown) => {
      this.input.reply.request.log.warn({ err: error, taskId: this.taskId }, 'image stream event failed');
    });
  }

  private async sendFrames(frames: number): Promise<void> {
    const { kind } = this.input;
    while (!this.final && this.sentFrames < Math.min(frames, this.partialImages)) {
      const index = this.sentFrames++;
      // Gone when the task ended meanwhile: its completed event follows.
      const bytes = await this.deps.blobs.get(partialFrameKey(this.taskId, index));
      if (!bytes || this.final) continue;
      this.send(`${kind}.partial_image`, {
        b64_json: bytes.toString('base64'),
        ...this.common(),
        output_format: 'png',
        partial_image_index: index,
        size: pngSize(bytes) ?? 'auto',
      });
    }
  }

  /** The watch ended: the image or the error, then the end. */
  private onEnd(): void {
    this.later(() =>
      this.finish().catch((error: unknown) => {
        const { taskId } = this;
        this.input.reply.request.log.error({ err: error, taskId }, 'image stream could not send its image');
        this.fail(500, 'internal_error', `The image could not be read (task id: ${taskId})`);
      }),
    );
    this.later(async () => this.end());
  }

  private async finish(): Promise<void> {
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
      const why = this.closing
        ? 'The server is closing'
        : `The image was not ready within ${this.deps.waitMs / 1000} s`;
      this.fail(504, 'wait_timeout', `${why}; it keeps rendering. Poll GET /api/v1/tasks/${taskId}`);
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
