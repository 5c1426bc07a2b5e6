import { generateBodySchema } from '../../base/contract/generate-body.js';
import type { OpenAiImagesResponse, ResponseFormat } from '../../base/contract/openai.js';
import { parseInput } from '../../base/contract/parse-input.js';
import { Gone, InvalidInput } from '../../base/domain/errors.js';
import type { GenerationMode } from '../../base/domain/generation-modes.js';
import type { ImageQuality } from '../../base/domain/image-qualities.js';
import type { ImageSize } from '../../base/domain/image-sizes.js';
import type { StageTimeline } from '../../base/observability/stage-timing.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { Account } from '../../capabilities/accounts/index.js';
import { type Catalog, type CatalogEntry, DEFAULT_MODEL_ID } from '../../capabilities/catalog/index.js';
import type { TaskChangeFeed, TasksService } from '../../capabilities/tasks/index.js';
import { type TaskRecord, toTaskRecord, waitForTasks } from '../../capabilities/tasks/index.js';
import type { BlobStore } from '../../infra/blobs/blob-store.js';
import type { GenerationsService } from '../../use-cases/generations/index.js';
import { answerUsage } from './answer-usage.js';
import { modelNotFound } from './models.js';
import { OpenAiCompatError } from './openai-errors.js';
import { checkMask, mapCount, mapQuality, mapSize } from './request-mapping.js';

/** What the answer echoes of its first image: the pixel size and format that were produced. */
function producedOf(record: TaskRecord | undefined): Pick<OpenAiImagesResponse, 'size' | 'output_format'> {
  const format = record?.contentType?.replace(/^image\//, '');
  return {
    ...(record?.width && record.height ? { size: `${record.width}x${record.height}` } : {}),
    ...(format ? { output_format: format } : {}),
  };
}

/** An OpenAI image request, before it is checked against the catalog. */
export interface ImageRequestInput {
  prompt: string;
  model?: string | null | undefined;
  n?: number | null | undefined;
  size?: string | null | undefined;
  response_format?: ResponseFormat | null | undefined;
  background?: string | null | undefined;
  /** OpenAI's `quality` (mapQuality). */
  quality?: string | null | undefined;
  /** Atelier's webhook for the generation's tasks (callbackUrl of POST /api/v1/generate). */
  callback_url?: string | null | undefined;
  /** How many reference images came with it (edits): 0 = text, 1 = edit, several = fusion. */
  references: number;
  /** An edit came with a mask (its model must list masks). */
  mask?: boolean;
}

/** A request checked against the catalog: what the generate use case will be asked. */
export interface ImagePlan {
  prompt: string;
  model: CatalogEntry;
  mode: GenerationMode;
  aspect: string;
  /**
   * An edit or fusion whose `size` is absent or `auto` keeps the (first) reference's shape, as
   * OpenAI's own edits do: the generate request then names no aspect.
   */
  keepReferenceAspect: boolean;
  imageSize: ImageSize;
  /** The quality tier passed through (absent: none, the upstream's auto). */
  quality?: ImageQuality;
  count: number;
  /** `both` when the request named none: `b64_json` (what GPT image models answer) and `url`. */
  responseFormat: ResponseFormat | 'both';
  callbackUrl?: string;
  /** A stream's `partial_images` (0-3): partial frames its task stores while it renders. */
  partialImages?: number;
  /** The stored mask's URL (an edit's `mask`), set once it is stored. */
  maskUrl?: string;
  /** The work this one refines (lineage: a gen_ or tsk_ id) and the turn's instruction. */
  parentId?: string;
  instruction?: string;
  /** The caller's W3C `traceparent`, which the generation's trace continues (tracing on). */
  traceparent?: string | undefined;
  /** `Atelier-Retention: none`: the work stores nothing once its images are delivered. */
  zeroRetention?: boolean;
  /** The request's stage marks (ATELIER_STAGE_TIMING, bench row S1); absent when off. */
  timeline?: StageTimeline | undefined;
}

/** A submitted request: when it was accepted (Unix seconds) and its tasks. */
export interface Submitted {
  created: number;
  ids: string[];
}

/** What the image requests are built over. */
export interface ImageRequestsDeps {
  catalog: Catalog;
  generations: GenerationsService;
  tasks: TasksService;
  feed: TaskChangeFeed;
  blobs: BlobStore;
  clock: Clock;
  waitMs: number;
  /** Maps one of Atelier's own file URLs to its blob key; undefined for foreign URLs. */
  blobKeyOfUrl(url: string): string | undefined;
  /** Tells zero-retention that an image was answered inline (base64): delivered (never throws). */
  delivered?: (keys: string[]) => void;
}

/**
 * The OpenAI-compatible image requests over the generations use case: plan (model, size, n, mode
 * onto the catalog), submit as an API generation, wait for the tasks on the task feed, and answer
 * in OpenAI's shape.
 */
export function createImageRequests(deps: ImageRequestsDeps) {
  return {
    plan: (input: ImageRequestInput) => planImageRequest(deps.catalog, input),
    submit: (account: Account, plan: ImagePlan, imageUrls: string[]) =>
      submitPlan(deps, account, plan, imageUrls),
    base64Of: (record: TaskRecord) => base64Of(deps, record),
    records: (accountId: string, ids: readonly string[]) => recordsOf(deps.tasks, accountId, ids),
    /** Waits for every task of `ids` to end, at most `timeoutMs` (see waitForTasks). */
    wait: (accountId: string, ids: readonly string[], timeoutMs: number) =>
      waitForTasks(deps, accountId, ids, timeoutMs),
    answer: (responseFormat: ImagePlan['responseFormat'], created: number, records: TaskRecord[]) =>
      answerOf(deps, responseFormat, created, records),
    run: (account: Account, plan: ImagePlan, imageUrls: string[], onWait: (stop: () => void) => void) =>
      runPlan(deps, account, plan, imageUrls, onWait),
  };
}

export type ImageRequests = ReturnType<typeof createImageRequests>;

/** Checks a request against the catalog; refusals name the OpenAI field (`param`). */
function planImageRequest(catalog: Catalog, input: ImageRequestInput): ImagePlan {
  const modelId = input.model?.trim() || DEFAULT_MODEL_ID;
  const model = catalog.get(modelId);
  if (!model) throw modelNotFound(catalog, modelId);
  if (input.background?.trim() === 'transparent') {
    throw new InvalidInput(
      `background transparent is not supported by model ${model.id}: its images are opaque; send auto or opaque`,
      'background',
    );
  }
  const mode = input.references === 0 ? 'text' : input.references === 1 ? 'edit' : 'fusion';
  if (!model.modes.includes(mode)) {
    const hint =
      mode === 'fusion' ? 'send one image, or pick a model that lists fusion' : 'pick another model';
    throw new InvalidInput(
      `image: model ${model.id} does not support ${mode === 'fusion' ? 'several images (fusion)' : mode}; ${hint}`,
      'image',
    );
  }
  if (input.mask) checkMask(model, input.references);
  if (mode === 'fusion' && input.references > model.maxReferences) {
    throw new InvalidInput(`image: model ${model.id} takes at most ${model.maxReferences} images`, 'image');
  }
  const quality = mapQuality(model, input.quality);
  return {
    prompt: input.prompt,
    model,
    mode,
    ...mapSize(model, input.size),
    ...(quality === undefined ? {} : { quality }),
    keepReferenceAspect: mode !== 'text' && ['', 'auto'].includes(input.size?.trim() ?? ''),
    count: mapCount(model, input.n),
    responseFormat: input.response_format ?? 'both',
    ...(typeof input.callback_url === 'string' ? { callbackUrl: input.callback_url } : {}),
  };
}

/**
 * The image bytes of a completed task, base64. A result no longer in storage was removed by the
 * data lifecycle (its work deleted past the Undo window, or expired): 410 gone, as its URL answers.
 */
async function base64Of(
  deps: Pick<ImageRequestsDeps, 'blobs' | 'blobKeyOfUrl' | 'delivered'>,
  record: TaskRecord,
): Promise<string> {
  const key = record.imageUrl ? deps.blobKeyOfUrl(record.imageUrl) : undefined;
  const bytes = key === undefined ? undefined : await deps.blobs.get(key);
  if (!bytes || key === undefined)
    throw new Gone(
      `The image of task ${record.task_id} was removed from storage (deleted, past its retention, or a zero-retention image delivered once); the task record stays`,
    );
  // Answered inline: a zero-retention work's image is delivered (its files go once all are).
  deps.delivered?.([key]);
  return bytes.toString('base64');
}

/**
 * Submits the plan as an API generation (history, saved works, library, webhooks like any
 * other): its tasks, and the second it was accepted.
 */
async function submitPlan(
  deps: Pick<ImageRequestsDeps, 'clock' | 'generations'>,
  account: Account,
  plan: ImagePlan,
  imageUrls: string[],
): Promise<Submitted> {
  const created = Math.floor(deps.clock.now() / 1000);
  // The generate body as the contract's schema gives it (its prompt rules are checked here).
  const body = parseInput(generateBodySchema, {
    prompt: plan.prompt,
    model: plan.model.id,
    mode: plan.mode,
    ...(plan.keepReferenceAspect ? {} : { aspect: plan.aspect }),
    imageSize: plan.imageSize,
    ...(plan.quality === undefined ? {} : { quality: plan.quality }),
    count: plan.count,
    imageUrls,
    ...(plan.maskUrl === undefined ? {} : { maskUrl: plan.maskUrl }),
    ...(plan.callbackUrl === undefined ? {} : { callbackUrl: plan.callbackUrl }),
    ...(plan.parentId === undefined ? {} : { parentId: plan.parentId, instruction: plan.instruction }),
  });
  const partials = {
    partialImages: plan.partialImages,
    traceparent: plan.traceparent,
    zeroRetention: plan.zeroRetention,
    timeline: plan.timeline,
  };
  const { task_ids: ids } = await deps.generations.generate(account, body, 'api', undefined, partials);
  return { created, ids };
}

/** The account's records of `ids`, in that order; undefined when the account lacks any of them. */
async function recordsOf(
  tasks: Pick<TasksService, 'findMany'>,
  accountId: string,
  ids: readonly string[],
): Promise<TaskRecord[] | undefined> {
  const rows = await tasks.findMany(accountId, ids);
  const byId = new Map(rows.map((row) => [row.id, toTaskRecord(row)]));
  const records = ids.flatMap((id) => byId.get(id) ?? []);
  return records.length === ids.length ? records : undefined;
}

/**
 * The answer of ended tasks, as the request's response_format asks: the completed images (in
 * task order); none completed → 502 with the (first) task's message.
 */
async function answerOf(
  deps: Pick<ImageRequestsDeps, 'blobs' | 'blobKeyOfUrl' | 'tasks' | 'delivered'>,
  responseFormat: ImagePlan['responseFormat'],
  created: number,
  records: TaskRecord[],
): Promise<OpenAiImagesResponse> {
  const completed = records.filter((record) => record.status === 'completed');
  if (completed.length === 0) {
    const reason = records.find((record) => record.error)?.error ?? 'Task failed';
    const ids = records.map((record) => record.task_id).join(',');
    const message = `Image generation failed: ${reason} (task ids: ${ids})`;
    throw new OpenAiCompatError(502, message, 'generation_failed', null, false);
  }
  // The images' bytes and the usage are read together (one store round trip less on the way out).
  const [data, usage] = await Promise.all([
    Promise.all(
      completed.map(async (record) => ({
        ...(responseFormat === 'url' ? {} : { b64_json: await base64Of(deps, record) }),
        ...(responseFormat === 'b64_json' ? {} : { url: record.imageUrl }),
      })),
    ),
    answerUsage(deps.tasks, completed),
  ]);
  return { created, data, ...producedOf(completed[0]), ...(usage ? { usage } : {}) };
}

/**
 * Submits the plan as an API generation (history, saved works, library, webhooks like any
 * other) and waits for its tasks. `onWait` receives the wait's stop function (the caller went
 * away, the server closes). Some images completed → those; none → 502 with the task's
 * message; the ceiling passed → 504 with the task ids to poll.
 */
async function runPlan(
  deps: ImageRequestsDeps,
  account: Account,
  plan: ImagePlan,
  imageUrls: string[],
  onWait: (stop: () => void) => void,
): Promise<OpenAiImagesResponse> {
  const { created, ids } = await submitPlan(deps, account, plan, imageUrls);
  const wait = waitForTasks(deps, account.id, ids, deps.waitMs);
  onWait(wait.stop);
  const { records, allFinal } = await wait.outcome;
  plan.timeline?.mark('wake');
  if (!allFinal) {
    const list = ids.join(',');
    throw new OpenAiCompatError(
      504,
      `The images were not ready within ${deps.waitMs / 1000} s; they keep rendering. Poll GET /api/v1/tasks?ids=${list} (task ids: ${list})`,
      'wait_timeout',
      null,
      false,
    );
  }
  const answer = await answerOf(deps, plan.responseFormat, created, records);
  plan.timeline?.mark('answer');
  return answer;
}
