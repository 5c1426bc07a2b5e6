import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../capabilities/accounts/index.js';
import type { Catalog } from '../../capabilities/catalog/index.js';
import type { IdempotencyRepository } from '../../capabilities/idempotency/index.js';
import type { UploadsService } from '../../capabilities/uploads/index.js';
import { type AccountResolver, accountOf } from '../http/authentication.js';
import type { ChatCompletionsDeps } from './chat-plan.js';
import type { ImagePlan, ImageRequests } from './image-requests.js';
import type { ImageStreams, StreamKind } from './image-stream.js';
import { acceptedImageTask, type ImageTaskKind, imageTaskSeal, prefersAsync } from './image-tasks.js';
import type { ResponseRequests } from './responses-requests.js';

/** What the OpenAI-compatible routes are built over. */
export interface OpenAiCompatDeps {
  catalog: Catalog;
  images: ImageRequests;
  streams: ImageStreams;
  uploads: UploadsService;
  idempotency: IdempotencyRepository;
  resolvers: AccountResolver[];
  /** The key of async ids' seals (derived from the master key). */
  stateIdKey: Buffer;
  /** What POST /v1/chat/completions reads beyond the image routes. */
  chat: ChatCompletionsDeps;
  /** The Responses API's image tool (responses-routes.ts). */
  responses: ResponseRequests;
}

/**
 * The three ways an image request is answered (waited for, streamed, accepted at once), and the
 * waits still open, which answer at once (504 with their task ids) when the server closes.
 */
export class ImageAnswers {
  private readonly openWaits = new Set<() => void>();

  constructor(
    private readonly deps: OpenAiCompatDeps,
    /** The prefix the routes are registered under (the Location of an accepted request). */
    private readonly prefix: string,
  ) {}

  /** Registers a stream's stop (called when the server closes); the function returned forgets it. */
  register(stop: () => void): () => void {
    this.openWaits.add(stop);
    return () => void this.openWaits.delete(stop);
  }

  /** Ends every open wait and stream (the server closes). */
  stopAll(): void {
    for (const stop of [...this.openWaits]) stop();
  }

  /**
   * Runs a planned request; its wait ends early when the caller goes away. The
   * response's `close` (not the request's, which fires once the body is read) is what says
   * the connection is gone before an answer was sent.
   */
  async untilGone<T>(reply: FastifyReply, wait: (onWait: (stop: () => void) => void) => Promise<T>) {
    let stop = () => {};
    const gone = () => stop();
    reply.raw.once('close', gone);
    try {
      return await wait((stopWait) => {
        stop = stopWait;
        this.openWaits.add(stopWait);
      });
    } finally {
      reply.raw.off('close', gone);
      this.openWaits.delete(stop);
    }
  }

  /** Submits and waits for the images (the synchronous answer). */
  runAndWait(reply: FastifyReply, account: Account, plan: ImagePlan, urls: string[]) {
    return this.untilGone(reply, (onWait) => this.deps.images.run(account, plan, urls, onWait));
  }

  /** stream: true — OpenAI's image event stream (image-stream.ts); the server's close ends it. */
  streamOut(
    request: FastifyRequest,
    reply: FastifyReply,
    plan: ImagePlan,
    urls: string[],
    kind: StreamKind,
    quality: string | null | undefined,
  ) {
    return this.deps.streams.stream({
      reply,
      account: accountOf(request),
      plan,
      imageUrls: urls,
      kind,
      echo: { quality },
      onStop: (stop) => this.register(stop),
    });
  }

  /** Asynchronous when the Prefer header or the body's `async` asks it. */
  wantsAsync(request: FastifyRequest, field: boolean | null | undefined): boolean {
    return field === true || prefersAsync(request.headers.prefer);
  }

  /** Submits without waiting: 202, the envelope, Location of its GET. */
  async accept(
    request: FastifyRequest,
    reply: FastifyReply,
    plan: ImagePlan,
    urls: string[],
    kind: ImageTaskKind,
  ) {
    const submitted = await this.deps.images.submit(accountOf(request), plan, urls);
    const seal = imageTaskSeal(this.deps.stateIdKey, accountOf(request).id);
    const answer = acceptedImageTask({ ...submitted, kind, responseFormat: plan.responseFormat }, seal);
    if (prefersAsync(request.headers.prefer)) reply.header('preference-applied', 'respond-async');
    reply.header(
      'location',
      `${this.prefix}/images/${kind === 'edit' ? 'edits' : 'generations'}/${answer.id}`,
    );
    return reply.code(202).send(answer);
  }
}
