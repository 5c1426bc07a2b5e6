import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { GeminiGenerateBody, GeminiGenerateResponse } from '../../base/contract/gemini.js';
import { generateBodySchema } from '../../base/contract/generate-body.js';
import { parseInput } from '../../base/contract/parse-input.js';
import { aboutReferenceField, DomainError, Gone, InvalidInput, TooLarge } from '../../base/domain/errors.js';
import type { Account } from '../../capabilities/accounts/index.js';
import type { AssetsRepository } from '../../capabilities/assets/index.js';
import type { Catalog, CatalogEntry } from '../../capabilities/catalog/index.js';
import { generationModels } from '../../capabilities/catalog/index.js';
import type { TaskChangeFeed, TaskRecord, TasksService } from '../../capabilities/tasks/index.js';
import { waitForTasks } from '../../capabilities/tasks/index.js';
import type { UploadsService } from '../../capabilities/uploads/index.js';
import { MAX_UPLOAD_BYTES, writeStreamToTempFile } from '../../capabilities/uploads/index.js';
import type { BlobStore } from '../../infra/blobs/blob-store.js';
import type { GenerationsService } from '../../use-cases/generations/index.js';
import { GeminiCompatError } from './gemini-errors.js';
import { type GeminiPlan, type PreviousImage, planGeminiRequest, type Reference } from './request-mapping.js';
import type { TurnSignatures } from './turn-signatures.js';
import { usageMetadataOf } from './usage-metadata.js';

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Google's answer to an unknown model, naming the ids that exist. */
export function geminiModelNotFound(catalog: Catalog, id: string): GeminiCompatError {
  const known = generationModels(catalog)
    .map((m) => m.id)
    .join(', ');
  return new GeminiCompatError(
    404,
    `models/${id} is not found; available models: ${known} (and their aliases, GET /v1beta/models)`,
    'not_found',
    'model',
  );
}

/** What generateContent reads and writes through. */
export interface GeminiRequestsDeps {
  catalog: Catalog;
  generations: GenerationsService;
  uploads: UploadsService;
  tasks: TasksService;
  feed: TaskChangeFeed;
  blobs: BlobStore;
  waitMs: number;
  /** Maps one of Atelier's own file URLs to its blob key; undefined for foreign URLs. */
  blobKeyOfUrl(url: string): string | undefined;
  /** Tells zero-retention that an image was answered inline (base64): delivered (never throws). */
  delivered?: (keys: string[]) => void;
  /** Signs the answers' images and reads the signatures sent back (turn-signatures.ts). */
  signatures: TurnSignatures;
  /** The account's result with exactly these bytes (a conversation's image sent back unsigned). */
  assets: Pick<AssetsRepository, 'resultTaskBySha256'>;
}

/** A request planned onto its catalog model. */
export interface PlannedGeminiRequest {
  model: CatalogEntry;
  plan: GeminiPlan;
  /** The caller's W3C `traceparent`, which the generation's trace continues (tracing on). */
  traceparent?: string | undefined;
  /** `Atelier-Retention: none`: the work stores nothing once its images are delivered. */
  zeroRetention?: boolean;
}

/**
 * The Gemini-native generateContent over the generations use case: plan the request onto the
 * catalog, store inline images like uploads, submit as an API generation (history, library,
 * webhooks, tier policies like any other), wait for the tasks on the task feed (the tasks'
 * wait), and answer Google's GenerateContentResponse, one candidate per image.
 */
export function createGeminiRequests(deps: GeminiRequestsDeps) {
  return new GeminiGenerateContent(deps);
}

export type GeminiRequests = ReturnType<typeof createGeminiRequests>;

/** generateContent's steps: plan, store the references, submit, wait, answer. */
export class GeminiGenerateContent {
  constructor(private readonly deps: GeminiRequestsDeps) {}

  /** The catalog model of a Gemini model id (`models/` optional); Google's 404 when unknown. */
  modelOf(id: string): CatalogEntry {
    const model = this.deps.catalog.get(id.replace(/^models\//, ''));
    if (!model) throw geminiModelNotFound(this.deps.catalog, id);
    return model;
  }

  /** Checks the request against the model before anything is stored or submitted. */
  plan(modelId: string, body: GeminiGenerateBody): PlannedGeminiRequest {
    const model = this.modelOf(modelId);
    return { model, plan: planGeminiRequest(model, body) };
  }

  /**
   * Stores the references, submits, and waits (`onWait` receives the wait's stop: the caller
   * went away, the server closes). Some images completed → those; none → 502 with the task's
   * message; the ceiling passed → 504 with the task ids to poll.
   */
  async run(
    account: Account,
    planned: PlannedGeminiRequest,
    onWait: (stop: () => void) => void,
  ): Promise<GeminiGenerateResponse> {
    const ids = await this.submit(account, planned);
    const wait = waitForTasks(this.deps, account.id, ids, this.deps.waitMs);
    onWait(wait.stop);
    const { records, allFinal } = await wait.outcome;
    const list = ids.join(',');
    if (!allFinal) {
      throw new GeminiCompatError(
        504,
        `The images were not ready within ${this.deps.waitMs / 1000} s; they keep rendering. Poll GET /api/v1/tasks?ids=${list}`,
        'wait_timeout',
      );
    }
    const completed = records.filter((record) => record.status === 'completed');
    if (completed.length === 0) {
      const reason = records.find((record) => record.error)?.error ?? 'Task failed';
      throw new GeminiCompatError(
        502,
        `Image generation failed: ${reason} (task ids: ${list})`,
        'generation_failed',
      );
    }
    return this.answerOf(account, planned.model, completed, list);
  }

  /**
   * The references stored, the request submitted as an API generation; its task ids. A conversation's
   * image that is one of the account's works makes the new work its refinement (`parentId`); any
   * other goes as the first reference, as does a parent the generate refuses (removed since, or its
   * files removed by the data lifecycle: the conversation carries the bytes, so the turn still works).
   */
  private async submit(
    account: Account,
    { model, plan, traceparent, zeroRetention }: PlannedGeminiRequest,
  ): Promise<string[]> {
    const previous = plan.previous;
    const parentId = previous ? await this.parentOf(account, previous) : undefined;
    const asReference = (): Reference[] => (previous ? [{ kind: 'inline', ...previous }] : []);
    const bodyWith = async (parent: string | undefined) =>
      parseInput(generateBodySchema, {
        prompt: plan.prompt,
        model: model.id,
        mode: plan.mode,
        ...(plan.aspect === undefined ? {} : { aspect: plan.aspect }),
        ...(plan.imageSize === undefined ? {} : { imageSize: plan.imageSize }),
        ...(plan.quality === undefined ? {} : { quality: plan.quality }),
        count: plan.count,
        imageUrls: await this.imageUrlsOf(account, [...(parent ? [] : asReference()), ...plan.references]),
        ...(parent ? { parentId: parent, instruction: plan.prompt } : {}),
      });
    const options = { traceparent, zeroRetention };
    try {
      return (
        await this.deps.generations.generate(account, await bodyWith(parentId), 'api', undefined, options)
      ).task_ids;
    } catch (error) {
      const refused = error instanceof InvalidInput && error.field === 'parentId';
      if (!parentId || !(refused || error instanceof Gone)) throw error;
      return (
        await this.deps.generations.generate(account, await bodyWith(undefined), 'api', undefined, options)
      ).task_ids;
    }
  }

  /** The account's task whose image a conversation sent back: by Atelier's signature, else by its bytes. */
  private async parentOf(account: Account, previous: PreviousImage): Promise<string | undefined> {
    const signed = previous.signature && this.deps.signatures.taskOf(account.id, previous.signature);
    if (signed) return signed;
    const data = previous.data.replace(/\s+/g, '');
    if (data === '' || !BASE64.test(data)) return undefined;
    const sha256 = createHash('sha256').update(Buffer.from(data, 'base64')).digest('hex');
    return this.deps.assets.resultTaskBySha256(account.id, sha256);
  }

  /** Google's answer: one candidate per completed image, and the usage the upstreams reported. */
  private async answerOf(
    account: Account,
    model: CatalogEntry,
    completed: TaskRecord[],
    list: string,
  ): Promise<GeminiGenerateResponse> {
    const candidates = await Promise.all(
      completed.map(async (record, index) => ({
        content: {
          role: 'model' as const,
          parts: [
            {
              inlineData: { mimeType: record.contentType ?? 'image/png', data: await this.base64Of(record) },
              // The next turn of the conversation sends it back: that turn then refines this image.
              thoughtSignature: this.deps.signatures.sign(account.id, record.task_id),
            },
          ],
        },
        finishReason: 'STOP' as const,
        index,
      })),
    );
    const usageMetadata = usageMetadataOf(
      await this.deps.tasks.reportedUsage(completed.map((record) => record.task_id)),
    );
    return { candidates, usageMetadata, modelVersion: model.id, responseId: list };
  }

  /** An inline image, checked and stored like an upload; its Atelier URL. */
  private async storeInline(account: Account, reference: Extract<Reference, { kind: 'inline' }>) {
    const data = reference.data.replace(/\s+/g, '');
    if (data === '' || !BASE64.test(data))
      throw new InvalidInput('data must be base64 image bytes', 'contents');
    if ((data.length * 3) / 4 > MAX_UPLOAD_BYTES + 3) throw new TooLarge('Image is larger than 25 MB');
    const file = await writeStreamToTempFile(Readable.from([Buffer.from(data, 'base64')]));
    try {
      return (await this.deps.uploads.ingestFile(account.id, file.path)).url;
    } finally {
      await file.cleanup();
    }
  }

  /** The references as imageUrls: inline images stored first, URLs passed on (fetched safely). */
  private async imageUrlsOf(account: Account, references: Reference[]): Promise<string[]> {
    const urls: string[] = [];
    for (const reference of references) {
      if (reference.kind === 'url') {
        urls.push(reference.url);
        continue;
      }
      try {
        urls.push(await this.storeInline(account, reference));
      } catch (error) {
        throw error instanceof DomainError ? aboutReferenceField(error, reference.label, 'contents') : error;
      }
    }
    return urls;
  }

  /** The image bytes of a completed task, base64. */
  private async base64Of(record: TaskRecord): Promise<string> {
    const key = record.imageUrl ? this.deps.blobKeyOfUrl(record.imageUrl) : undefined;
    const bytes = key === undefined ? undefined : await this.deps.blobs.get(key);
    if (!bytes || key === undefined)
      throw new Gone(
        `The image of task ${record.task_id} is no longer stored (deleted, expired, or delivered once)`,
      );
    // Answered inline: a zero-retention work's image is delivered (its files go once all are).
    this.deps.delivered?.([key]);
    return bytes.toString('base64');
  }
}
