import type { FastifyReply } from 'fastify';
import { isFinalStatus } from '../../base/domain/task-status.js';
import type { TaskChangeFeed, TaskRecord, TasksService } from '../../capabilities/tasks/index.js';
import { partialFrameKey, watchTasks } from '../../capabilities/tasks/index.js';
import type { BlobStore } from '../../infra/blobs/blob-store.js';

const HEARTBEAT_MS = 15_000;

/** What a one-task stream watches and reads its partial frames from. */
export interface TaskStreamSources {
  watching: { feed: TaskChangeFeed; tasks: TasksService };
  blobs: BlobStore;
  /** How long the stream waits for the image before it ends with a timeout. */
  waitMs: number;
}

/**
 * The event stream of one task, as OpenAI's image streams and the Responses API's share it: the
 * reply taken over, partial frames sent as the feed announces them (up to `partialImages`), then
 * what the final record (or its absence: a timeout, the server closing) says, then the end; a
 * heartbeat comment keeps proxies from closing it. Subclasses say how each event is written.
 */
export abstract class TaskEventStream {
  protected readonly raw: FastifyReply['raw'];
  protected closed = false;
  protected closing = false;
  protected final: TaskRecord | undefined;
  private sentFrames = 0;
  private queue = Promise.resolve();
  private watch: { stop(): void } | undefined;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private unregister: () => void = () => {};

  constructor(
    protected readonly reply: FastifyReply,
    protected readonly taskId: string,
    private readonly sources: TaskStreamSources,
    private readonly partialImages: number,
    /** What the stream is, for its log lines ("image stream", "response stream"). */
    private readonly what: string,
  ) {
    this.raw = reply.raw;
  }

  /** Takes the reply over and writes the stream's head. */
  protected open(): void {
    this.reply.hijack();
    this.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      'x-request-id': this.reply.request.id,
    });
  }

  /** Watches the task until it ends, the wait runs out or the server closes (`onStop`). */
  protected watchTask(accountId: string, onStop: (stop: () => void) => () => void): void {
    this.watch = watchTasks(this.sources.watching, accountId, [this.taskId], {
      timeoutMs: this.sources.waitMs,
      ...(this.partialImages > 0
        ? { onPartialFrames: (_id: string, frames: number) => this.later(() => this.sendFrames(frames)) }
        : {}),
      onRecord: (record) => {
        if (!isFinalStatus(record.status)) return false;
        this.final = record;
        return true;
      },
      onEnd: () => this.onEnd(),
    });
    this.raw.once('close', this.gone);
    this.unregister = onStop(() => {
      this.closing = true;
      this.watch?.stop();
    });
    this.heartbeat = setInterval(() => !this.closed && this.raw.write(': keep-alive\n\n'), HEARTBEAT_MS);
  }

  /** One partial frame, as the subclass's event. */
  protected abstract sendFrame(index: number, bytes: Buffer): void;

  /** The end: the final record's events, or the timeout's. */
  protected abstract finish(): Promise<void>;

  /** The image could not be read: the subclass's error event. */
  protected abstract failRead(message: string): void;

  /** Why a stream with no final record ends: the server closing, or the wait run out. */
  protected whyUnfinished(): string {
    return this.closing
      ? 'The server is closing'
      : `The image was not ready within ${this.sources.waitMs / 1000} s`;
  }

  /** The caller went away: nothing more is written. */
  private readonly gone = () => {
    this.closed = true;
    this.watch?.stop();
  };

  /** Runs `work` after what is already queued: events leave in order. */
  private later(work: () => Promise<void>): void {
    this.queue = this.queue.then(work).catch((error: unknown) => {
      this.reply.request.log.warn({ err: error, taskId: this.taskId }, `${this.what} event failed`);
    });
  }

  private async sendFrames(frames: number): Promise<void> {
    while (!this.final && this.sentFrames < Math.min(frames, this.partialImages)) {
      const index = this.sentFrames++;
      // Gone when the task ended meanwhile: its completed events follow.
      const bytes = await this.sources.blobs.get(partialFrameKey(this.taskId, index));
      if (!bytes || this.final) continue;
      this.sendFrame(index, bytes);
    }
  }

  /** The watch ended: the image or the error, then the end. */
  private onEnd(): void {
    this.later(() =>
      this.finish().catch((error: unknown) => {
        const { taskId } = this;
        this.reply.request.log.error({ err: error, taskId }, `${this.what} could not send its image`);
        this.failRead(`The image could not be read (task id: ${taskId})`);
      }),
    );
    this.later(async () => this.end());
  }

  private end(): void {
    clearInterval(this.heartbeat);
    this.unregister();
    this.raw.off('close', this.gone);
    if (!this.closed) this.raw.end();
    this.closed = true;
  }
}
