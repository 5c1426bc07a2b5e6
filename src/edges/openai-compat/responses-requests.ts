import type { OpenAiResponse, OpenAiResponseCreate } from '../../base/contract/openai-responses.js';
import { InvalidInput, NotFound } from '../../base/domain/errors.js';
import { isFinalStatus } from '../../base/domain/task-status.js';
import type { Account } from '../../capabilities/accounts/index.js';
import type { Catalog } from '../../capabilities/catalog/index.js';
import type { Responses, StoredResponse } from '../../capabilities/responses/index.js';
import type { TaskChangeFeed, TaskRecord, TasksService } from '../../capabilities/tasks/index.js';
import type { UploadsService } from '../../capabilities/uploads/index.js';
import type { BlobStore } from '../../infra/blobs/blob-store.js';
import { answerUsage } from './answer-usage.js';
import type { ImagePlan, ImageRequests } from './image-requests.js';
import { partialImagesOf } from './image-stream.js';
import { type ResponseEcho, type ResponseResults, responseOf } from './responses-answer.js';
import { imageUrlsOf, type ResponseAsk, readResponseAsk, taskIdOfImageCall } from './responses-request.js';

/** What the Responses API's requests are built over. */
export interface ResponseRequestsDeps {
  catalog: Catalog;
  images: ImageRequests;
  uploads: UploadsService;
  responses: Responses;
  tasks: TasksService;
  feed: TaskChangeFeed;
  blobs: BlobStore;
  waitMs: number;
}

/** A started response: its row (saved unless store is false) and its stream's partial frames. */
/** What a request brings besides its body: the caller's trace, and whether it keeps no file. */
export interface ResponseStartOptions {
  traceparent?: string | undefined;
  zeroRetention?: boolean;
}

export interface StartedResponse {
  stored: StoredResponse;
  partialImages: number;
}

/**
 * The Responses API's image tool over the image requests: a request becomes one generation of one
 * image (through generations.generate, as /v1/images/generations), refining the image
 * `previous_response_id` or an `image_generation_call` item of `input` names (lineage: its task is
 * the parent); the response is stored per account and rebuilt from its tasks when read.
 */
export function createResponseRequests(deps: ResponseRequestsDeps) {
  /** Each completed image's bytes, base64, and the reported usage. */
  async function results(records: readonly TaskRecord[]): Promise<ResponseResults> {
    const completed = records.filter((record) => record.status === 'completed');
    const images = new Map<string, string>();
    for (const record of completed) images.set(record.task_id, await deps.images.base64Of(record));
    return { images, usage: await answerUsage(deps.tasks, completed) };
  }

  /** The response as its records are now. */
  async function read(stored: StoredResponse, records: TaskRecord[]): Promise<OpenAiResponse> {
    const final = records.every((record) => isFinalStatus(record.status));
    return responseOf(stored, records, final ? await results(records) : undefined);
  }

  /** The account's stored response; another account's, a deleted or an unknown one → 404. */
  async function find(accountId: string, id: string) {
    const stored = await deps.responses.find(accountId, id);
    const records = stored && (await deps.images.records(accountId, stored.taskIds));
    if (!stored || !records) throw new NotFound(`No response with id '${id.slice(0, 80)}'`);
    return { stored, records };
  }

  return {
    results,
    read,
    images: deps.images,
    waitMs: deps.waitMs,
    blobs: deps.blobs,
    /** What a stream's task watch reads. */
    watching: { feed: deps.feed, tasks: deps.tasks },

    /**
     * Checks, plans and submits a request; saves its row unless `store` is false. `traceparent`:
     * the caller's W3C header, which the generation's trace continues (tracing on); `zeroRetention`:
     * the request keeps no file once delivered (`Atelier-Retention: none`, or the key's setting).
     */
    start: (account: Account, body: OpenAiResponseCreate, options: ResponseStartOptions = {}) =>
      start(deps, account, body, options),

    async get(accountId: string, id: string): Promise<OpenAiResponse> {
      const { stored, records } = await find(accountId, id);
      return read(stored, records);
    },

    async remove(accountId: string, id: string) {
      if (!(await deps.responses.remove(accountId, id)))
        throw new NotFound(`No response with id '${id.slice(0, 80)}'`);
      return { id, object: 'response' as const, deleted: true as const };
    },
  };
}

export type ResponseRequests = ReturnType<typeof createResponseRequests>;

/** The image refined: an image item named in `input`, else the previous response's last image. */
async function parentOf(
  deps: ResponseRequestsDeps,
  accountId: string,
  ask: ResponseAsk,
  previousId: string | null | undefined,
): Promise<string | undefined> {
  if (ask.inputImageCall) return taskIdOfImageCall(ask.inputImageCall);
  if (!previousId) return undefined;
  const previous = await deps.responses.find(accountId, previousId);
  if (!previous)
    throw new InvalidInput(
      `Previous response with id '${previousId.slice(0, 80)}' not found`,
      'previous_response_id',
    );
  return previous.taskIds.at(-1);
}

async function start(
  deps: ResponseRequestsDeps,
  account: Account,
  body: OpenAiResponseCreate,
  { traceparent, zeroRetention = false }: ResponseStartOptions,
): Promise<StartedResponse> {
  const ask = readResponseAsk(deps.catalog, body);
  const store = body.store !== false;
  const background = body.background === true;
  if (background && !store) throw new InvalidInput('background requires store to be true', 'background');
  const parent = await parentOf(deps, account.id, ask, body.previous_response_id);
  const { tool } = ask;
  const plan: ImagePlan = deps.images.plan({
    prompt: ask.prompt,
    model: ask.model,
    size: tool.size,
    quality: tool.quality,
    background: tool.background,
    references: (parent ? 1 : 0) + ask.images.length,
  });
  const partialImages = body.stream === true ? partialImagesOf(tool.partial_images) : 0;
  if (partialImages > 0) plan.partialImages = partialImages;
  plan.traceparent = traceparent;
  if (parent) Object.assign(plan, { parentId: parent, instruction: ask.prompt });
  if (zeroRetention) plan.zeroRetention = true;
  const urls = await imageUrlsOf(deps.uploads, account, ask.images);
  const { id, createdAt } = deps.responses.newId();
  const { ids } = await deps.images.submit(account, plan, urls);
  const echo: ResponseEcho = {
    model: plan.model.id,
    tools: [tool],
    prompt: ask.prompt,
    action: plan.mode === 'text' ? 'generate' : 'edit',
    background,
    store,
    instructions: body.instructions ?? null,
    metadata: body.metadata ?? {},
  };
  const stored: StoredResponse = {
    id,
    accountId: account.id,
    createdAt,
    previousResponseId: body.previous_response_id ?? null,
    taskIds: ids,
    body: { ...echo },
  };
  if (store) await deps.responses.save(stored);
  return { stored, partialImages };
}
