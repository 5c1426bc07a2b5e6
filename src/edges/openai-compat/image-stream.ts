import type { FastifyReply } from 'fastify';
import { InvalidInput } from '../../base/domain/errors.js';
import { isFinalStatus } from '../../base/domain/task-status.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { Account } from '../../capabilities/accounts/accounts-repository.js';
import { MAX_PARTIAL_FRAMES, partialFrameKey } from '../../capabilities/tasks/partial-frames.js';
import type { TaskChangeFeed } from '../../capabilities/tasks/task-events.js';
import type { TaskRecord } from '../../capabilities/tasks/task-record.js';
import { watchTasks } from '../../capabilities/tasks/task-watch.js';
import type { TasksService } from '../../capabilities/tasks/tasks-service.js';
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
function pngSize(bytes: Buffer): string | undefined {
  if (bytes.length < 24 || bytes.readUInt32BE(12) !== 0x49484452) return undefined;
  return `${bytes.readUInt32BE(16)}x${bytes.readUInt32BE(20)}`;
}

/**
 * OpenAI's image event stream (`stream: true`, docs/openai-compat.md#streaming): the request's
 * one task is submitted with its `partial_images`; each partial frame the engine stores (on any
 * node: a blob, announced on the task change feed) is sent as `<kind>.partial_image`, then the
 * image as `<kind>.completed` with `usage`. A failure after the stream began is an `error` event
 * (what OpenAI's SDK turns into an APIError), then the end.
 */
export function createImageStreams(deps: {
  images: Pick<ImageRequests, 'submit' | 'base64Of'>;
  feed: TaskChangeFeed;
  tasks: TasksService;
  blobs: BlobStore;
  clock: Clock;
  waitMs: number;
}) {
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
    async stream(input: {
      reply: FastifyReply;
      account: Account;
      plan: ImagePlan;
      imageUrls: string[];
      kind: StreamKind;
      echo: StreamEcho;
      onStop(stop: () => void): () => void;
    }): Promise<void> {
      const { reply, account, plan, kind } = input;
      const partialImages = plan.partialImages ?? 0;
      const { ids } = await deps.images.submit(account, plan, input.imageUrls);
      const taskId = ids[0] ?? '';
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
        'x-request-id': reply.request.id,
      });
      const quality = QUALITIES.find((q) => q === input.echo.quality?.trim()) ?? 'auto';
      // Every image of the catalog is opaque (transparent is refused).
      const common = () => ({
        background: 'opaque',
        created_at: Math.floor(deps.clock.now() / 1000),
        quality,
      });
      let closed = false;
      const send = (event: string, data: object) => {
        if (!closed) raw.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
      };
      let sentFrames = 0;
      let final: TaskRecord | undefined;
      let queue = Promise.resolve();
      const later = (work: () => Promise<void>) => {
        queue = queue.then(work).catch((error: unknown) => {
          reply.request.log.warn({ err: error, taskId }, 'image stream event failed');
        });
      };

      const sendFrames = async (frames: number) => {
        while (!final && sentFrames < Math.min(frames, partialImages)) {
          const index = sentFrames++;
          // Gone when the task ended meanwhile: its completed event follows.
          const bytes = await deps.blobs.get(partialFrameKey(taskId, index));
          if (!bytes || final) continue;
          send(`${kind}.partial_image`, {
            b64_json: bytes.toString('base64'),
            ...common(),
            output_format: 'png',
            partial_image_index: index,
            size: pngSize(bytes) ?? 'auto',
          });
        }
      };
      const fail = (status: number, code: string, message: string) =>
        send('error', openAiErrorBody(status, code, message));
      const finish = async () => {
        if (final?.status === 'completed') {
          const b64 = await deps.images.base64Of(final);
          const usage = (await answerUsage(deps.tasks, [final])) ?? NO_USAGE;
          send(`${kind}.completed`, {
            b64_json: b64,
            ...common(),
            output_format: final.contentType?.replace(/^image\//, '') ?? 'png',
            size: final.width && final.height ? `${final.width}x${final.height}` : 'auto',
            usage,
          });
        } else if (final) {
          fail(
            502,
            'generation_failed',
            `Image generation failed: ${final.error ?? 'Task failed'} (task id: ${taskId})`,
          );
        } else if (!closed) {
          const why = closing
            ? 'The server is closing'
            : `The image was not ready within ${deps.waitMs / 1000} s`;
          fail(504, 'wait_timeout', `${why}; it keeps rendering. Poll GET /api/v1/tasks/${taskId}`);
        }
      };
      const end = () => {
        clearInterval(heartbeat);
        unregister();
        raw.off('close', gone);
        if (!closed) raw.end();
        closed = true;
      };

      const watch = watchTasks({ feed: deps.feed, tasks: deps.tasks }, account.id, ids, {
        timeoutMs: deps.waitMs,
        ...(partialImages > 0
          ? { onPartialFrames: (_id: string, frames: number) => later(() => sendFrames(frames)) }
          : {}),
        onRecord: (record) => {
          if (!isFinalStatus(record.status)) return false;
          final = record;
          return true;
        },
        onEnd: () => {
          later(() =>
            finish().catch((error: unknown) => {
              reply.request.log.error({ err: error, taskId }, 'image stream could not send its image');
              fail(500, 'internal_error', `The image could not be read (task id: ${taskId})`);
            }),
          );
          later(async () => end());
        },
      });
      const gone = () => {
        closed = true;
        watch.stop();
      };
      raw.once('close', gone);
      let closing = false;
      const unregister = input.onStop(() => {
        closing = true;
        watch.stop();
      });
      const heartbeat = setInterval(() => !closed && raw.write(': keep-alive\n\n'), HEARTBEAT_MS);
    },
  };
}

export type ImageStreams = ReturnType<typeof createImageStreams>;
