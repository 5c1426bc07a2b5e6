import { randomInt } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { ActionBody } from '../../base/contract/actions.js';
import type { GenerateBody, GenerateResponse } from '../../base/contract/generations.js';
import {
  aboutReferenceField,
  DomainError,
  IdempotencyInProgress,
  InvalidInput,
  NotFound,
  UpstreamFailed,
} from '../../base/domain/errors.js';
import { MAX_SEED } from '../../base/domain/image-actions.js';
import type { TraceSpan, Tracing } from '../../base/observability/tracing.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { Account, UpstreamKeyResolver } from '../../capabilities/accounts/index.js';
import { type Catalog, maxImageCostOf, nearestAspect } from '../../capabilities/catalog/index.js';
import {
  type IdempotencyClaim,
  IdempotencyClaimLostError,
  type IdempotencyRepository,
} from '../../capabilities/idempotency/index.js';
import type { ProviderRegistry } from '../../capabilities/providers/index.js';
import type { TaskEngine } from '../../capabilities/tasks/index.js';
import type { UploadsService } from '../../capabilities/uploads/index.js';
import type { Budgets, TierAdmission } from '../../capabilities/usage/index.js';
import type { BlobStore } from '../../infra/blobs/blob-store.js';
import { inspectImageBuffer } from '../../infra/images/inspect-image.js';
import { maskProblem } from '../../infra/images/mask-check.js';
import type { Database } from '../../infra/store/schema.js';
import { checkGenerateRequest, type GenerateOptions, type GenerateRequest } from './generate-request.js';
import { endGenerationSpan, startGenerationSpan, taskTraceOf, traceAdmission } from './generation-traces.js';
import type { GenerationsRepository } from './generations-repository.js';
import { type PlannedAction, planAction, type WorkSettings } from './image-actions.js';
import { findParent, type ParentReads, refinementBody } from './lineage.js';
import { createQuotes } from './quotes.js';
import { readyProvider } from './ready-provider.js';

/** The answer of POST /generate (spec §2.3). */
export type GenerateAnswer = GenerateResponse;

/** What the generate use case is built over. */
export interface GenerationsDeps {
  catalog: Catalog;
  providers: ProviderRegistry;
  keys: UpstreamKeyResolver;
  generations: GenerationsRepository;
  idempotency: IdempotencyRepository;
  uploads: UploadsService;
  blobs: BlobStore;
  engine: TaskEngine;
  /** Maps one of Atelier's own file URLs to its blob key; undefined for foreign URLs. */
  blobKeyOfUrl(url: string): string | undefined;
  /** Refuses (400, naming callbackUrl) a callbackUrl whose address the webhook policy does not allow. */
  vetCallbackUrl(url: string): Promise<void>;
  /** The webhooks capability's record of a callbackUrl, written in the generation's transaction. */
  recordCallback(
    trx: Transaction<Database>,
    callback: { generationId: string; accountId: string; url: string },
  ): Promise<void>;
  /** Tier policies: the models a tier may use, and its quotas, checked in the creating transaction. */
  admission?: Pick<TierAdmission, 'checkModel' | 'admitIn'>;
  /** Budgets: the request's reservation (count × its most per image) checked in the creating transaction. */
  budgets?: Pick<Budgets, 'admitIn'>;
  /** The account's tasks and generations a refinement's `parentId` is looked up in (lineage.ts), and a work's settings (actions). */
  parents: ParentReads & {
    settingsOf(accountId: string, generationId: string): Promise<WorkSettings | undefined>;
  };
  /** The public URL of a stored file (an expand's canvas and mask, a reroll's references). */
  blobUrl(key: string): string;
  /** Width and height of a stored image of the account (its upload or result record), if known. */
  referenceSize?: (
    accountId: string,
    blobKey: string,
  ) => Promise<{ width: number; height: number } | undefined>;
  taskDeadlineMs: number;
  leaseMs: number;
  /** The key quote ids are authenticated with (POST /api/v1/quotes), and the clock; no quotes without. */
  quotes?: { key: Buffer; clock: Clock };
  /** Traces: a span per request, its admission, and the trace its tasks join (off: none). */
  tracing?: Tracing;
}

/** The deps, and the quotes built over them (none without a quote key). */
interface GenerateContext extends GenerationsDeps {
  quoteBook: ReturnType<typeof createQuotes> | undefined;
}

/** The generate use case and the removal of a saved work (reads are the read models', src/use-cases/read-models). */
export function createGenerationsService(deps: GenerationsDeps) {
  const context: GenerateContext = {
    ...deps,
    quoteBook: deps.quotes && createQuotes({ catalog: deps.catalog, ...deps.quotes }),
  };
  return {
    /** POST /quotes: what a generate body would cost at most, bound by a quote id (src/use-cases/generations/quotes.ts). */
    quote: (account: Account, body: GenerateBody) => quotesOrRefuse(context).quote(account.id, body),

    /**
     * POST /generate. With an Idempotency-Key `claim`, the answer is recorded in the transaction
     * that creates the generation, so a retry after a crash at any point replays exactly the
     * answer of what was committed, and nothing is created twice. `body` is the contract schema's
     * output (the route validated it); only what the schema cannot know is checked here.
     */
    generate: (
      account: Account,
      body: GenerateBody,
      source: 'api' | 'web' = 'api',
      claim?: IdempotencyClaim,
      /** Partial frames (OpenAI streams), the caller's W3C `traceparent`, zero-retention. */
      options: GenerateOptions = {},
    ): Promise<GenerateAnswer> => generate(context, { account, body, source, claim, options }),

    /**
     * POST /generations/{id}/actions: an action on a finished image of the account's work, run as a
     * generate request (image-actions.ts) whose parent is that image; the same answer as generate.
     */
    act: async (
      account: Account,
      workId: string,
      body: ActionBody,
      source: 'api' | 'web' = 'api',
      claim?: IdempotencyClaim,
      traceparent?: string,
      zeroRetention?: boolean,
    ): Promise<GenerateAnswer> => {
      const planned = await planAction(context, account.id, workId, body);
      const options = { planned, traceparent, zeroRetention };
      return generate(context, { account, body: planned.body, source, claim, options });
    },

    /** Deletes a generation from saved works: history keeps it, marked `removed`. 404 when not the account's. */
    async remove(account: Account, generationId: string): Promise<void> {
      if (!(await deps.generations.markRemoved(account.id, generationId))) {
        throw new NotFound('Generation not found');
      }
    },

    /** The account's generations deleted at or after `since` (ids, latest first, at most `limit`). */
    removedSince(accountId: string, since: number, limit: number): Promise<string[]> {
      return deps.generations.removedSince(accountId, since, limit);
    },
  };
}

/** One POST /generate as the edge passed it. */
interface GenerateCall {
  account: Account;
  body: GenerateBody;
  source: 'api' | 'web';
  claim: IdempotencyClaim | undefined;
  /** Partial frames for a stream (the OpenAI routes); the action this request carries out (act). */
  options: GenerateOptions & { planned?: PlannedAction };
}

/** POST /generate (see `generate` on the service): check, store the references, commit, then submit or wake. */
async function generate(context: GenerateContext, call: GenerateCall): Promise<GenerateAnswer> {
  const { account, body } = call;
  const { planned } = call.options;
  const parent =
    planned?.parent ??
    (body.parentId == null ? undefined : await findParent(context.parents, account.id, body.parentId));
  // An action's body names its own references (the picked image, a canvas, the work's own).
  const checked = parent && !planned ? refinementBody(body, parent) : body;
  const request = checkGenerateRequest(checked, context.catalog, planned?.route);
  if (parent) {
    request.parent = { id: parent.id, taskId: parent.taskId };
    request.instruction = planned?.instruction ?? (body.instruction ?? body.prompt).trim();
  }
  if (planned) request.action = planned.action;
  // A route that takes seeds always gets one, recorded: the caller's, else a new one.
  if (request.model.seeds && request.seed === undefined) request.seed = randomInt(0, MAX_SEED + 1);
  // A quote binds: what it promised is reserved and is the most each image is charged.
  const quotedCap =
    body.quote_id == null ? undefined : quotesOrRefuse(context).maxPerImage(account.id, body.quote_id, body);
  if (call.options.partialImages) request.partialImages = call.options.partialImages;
  if (call.options.zeroRetention || account.apiKey?.zeroRetention) request.zeroRetention = true;
  const span = startGenerationSpan(context.tracing, call.options.traceparent, account, request, call.source);
  try {
    const created = await checkAndCreate(context, call, request, quotedCap, span);
    endGenerationSpan(span, created);
    return created.answer;
  } catch (error) {
    endGenerationSpan(span, { error });
    throw error;
  }
}

/** The rest of POST /generate once the request is checked: admission, references, the commit, the submit. */
async function checkAndCreate(
  context: GenerateContext,
  call: GenerateCall,
  request: GenerateRequest,
  quotedCap: number | undefined,
  span: TraceSpan | undefined,
) {
  const { account, claim } = call;
  context.admission?.checkModel(account, request.model.id);
  const provider = await readyProvider(context, account, request);
  if (request.callbackUrl !== undefined) await context.vetCallbackUrl(request.callbackUrl);
  const refKeys = await storeReferences(context, account, request.imageUrls);
  call.options.timeline?.mark('admission');
  const maskKey =
    request.maskUrl === undefined
      ? undefined
      : await storeMask(context, account, request.maskUrl, refKeys[0]);
  if (request.keepReferenceAspect) request.aspect = await referenceAspect(context, account, request, refKeys);
  const answer = (taskIds: string[]): GenerateAnswer => ({ task_ids: taskIds, email: account.email });
  // A synchronous provider's tasks go straight to this process's worker when it has room (issue 48).
  const handOff = !provider.submitsInline && context.engine.canTake(request.count);
  const { generationId, taskIds } = await createGeneration(
    context,
    account,
    {
      accountId: account.id,
      source: call.source,
      request,
      refKeys,
      ...(maskKey === undefined ? {} : { maskKey }),
      // The most one image can cost on any of the model's routes: held against budgets.
      ...(quotedCap === undefined ? {} : { costCapMicros: quotedCap }),
      costReservedMicros:
        quotedCap ??
        maxImageCostOf(
          request.model,
          request.imageSize,
          {
            promptChars: request.prompt.length,
            references: refKeys.length + (maskKey === undefined ? 0 : 1),
          },
          request.quality,
        ),
      apiKeyId: account.apiKey?.id ?? null,
      deadlineMs: context.taskDeadlineMs,
      leaseOwner: provider.submitsInline || handOff ? context.engine.owner : null,
      leaseMs: context.leaseMs,
    },
    claim,
    answer,
    span,
  );
  call.options.timeline?.link(taskIds);
  call.options.timeline?.mark('insert');
  if (provider.submitsInline) await submitInline(context, generationId, taskIds, claim);
  else if (handOff) await context.engine.handOff(account.id, taskIds);
  else context.engine.wake();
  return { generationId, taskIds, answer: answer(taskIds) };
}

/** Submits the tasks of an inline provider now; when the upstream refused them all, the generation is rejected. */
async function submitInline(
  context: GenerateContext,
  generationId: string,
  taskIds: string[],
  claim: IdempotencyClaim | undefined,
): Promise<void> {
  const results = await context.engine.submitInline(taskIds);
  const failures = results.filter((r) => r.kind === 'failed');
  if (failures.length === taskIds.length && failures[0]?.kind === 'failed') {
    // Refused upstream, nothing to charge: the key is free for a retry, with the rejection.
    await context.generations.markRejected(
      generationId,
      claim && ((trx) => context.idempotency.forgetIn(trx, claim)),
    );
    throw new UpstreamFailed(`Upstream provider error: ${failures[0].message}`);
  }
}

function quotesOrRefuse(context: GenerateContext) {
  if (!context.quoteBook) throw new InvalidInput('quote_id: this deployment gives no quotes', 'quote_id');
  return context.quoteBook;
}

/**
 * The model's ratio nearest the first reference, for an edit or fusion that names no aspect (what
 * history reports; the providers are told to keep the reference's own shape). The request's
 * default when the reference's size is not on record.
 */
async function referenceAspect(
  context: GenerateContext,
  account: Account,
  request: GenerateRequest,
  refKeys: string[],
) {
  const first = refKeys[0];
  const stored = first === undefined ? undefined : await context.referenceSize?.(account.id, first);
  // A file that is no upload or result of the account (an expand's canvas): its own header says.
  const bytes = stored || first === undefined ? undefined : await context.blobs.get(first);
  const size = stored ?? (bytes && (await inspectImageBuffer(bytes)));
  return (size && nearestAspect(size.width, size.height, request.model.aspects)) ?? request.aspect;
}

/** Turns the request's imageUrls into stored blob keys: own URLs are looked up, others fetched safely. */
async function storeReferences(
  context: GenerateContext,
  account: Account,
  urls: string[],
  fieldOf = (i: number) => `imageUrls[${i}]`,
): Promise<string[]> {
  const keys: string[] = [];
  for (const [i, url] of urls.entries()) {
    const ownKey = context.blobKeyOfUrl(url);
    if (ownKey !== undefined) {
      if (!(await context.blobs.stat(ownKey)))
        throw new InvalidInput(`${fieldOf(i)}: no such file on this server`, fieldOf(i));
      keys.push(ownKey);
      continue;
    }
    try {
      const uploaded = await context.uploads.ingestUrl(account.id, url);
      keys.push(uploaded.blobKey);
    } catch (error) {
      if (error instanceof DomainError) throw aboutReferenceField(error, fieldOf(i));
      throw error;
    }
  }
  return keys;
}

/**
 * Stores an edit's mask like a reference (the same fetch and checks) and holds it to OpenAI's
 * rules against the image it masks: a PNG with alpha, the image's size. Its blob key.
 */
async function storeMask(
  context: GenerateContext,
  account: Account,
  maskUrl: string,
  imageKey: string | undefined,
) {
  const [maskKey] = await storeReferences(context, account, [maskUrl], () => 'maskUrl');
  const mask = maskKey === undefined ? undefined : await context.blobs.get(maskKey);
  const image = imageKey === undefined ? undefined : await context.blobs.get(imageKey);
  if (maskKey === undefined || !mask || !image) throw new InvalidInput('maskUrl: no such file', 'maskUrl');
  const size =
    (await context.referenceSize?.(account.id, imageKey as string)) ?? (await inspectImageBuffer(image));
  const problem = await maskProblem(mask, size);
  if (problem) throw new InvalidInput(`maskUrl: the mask ${problem}`, 'maskUrl');
  return maskKey;
}

/**
 * The generation, its webhook callback and its Idempotency-Key answer commit together, or none
 * does: a task can never end before its callback exists, nor a replay answer what was not created.
 */
async function createGeneration(
  context: GenerateContext,
  account: Account,
  input: Omit<Parameters<GenerationsRepository['create']>[0], 'alsoInTransaction'>,
  claim: IdempotencyClaim | undefined,
  answer: (taskIds: string[]) => GenerateAnswer,
  span: TraceSpan | undefined,
) {
  const { callbackUrl } = input.request;
  try {
    return await context.generations.create({
      ...input,
      trace: taskTraceOf(context.tracing, span),
      async alsoInTransaction(trx, created) {
        const images = created.taskIds.length;
        const reserved = (input.costReservedMicros ?? 0) * images;
        // First: a refusal over quota rolls everything back before anything else is recorded.
        await traceAdmission(
          context.tracing,
          span,
          { account, images, reservedMicros: reserved },
          async () => {
            await context.admission?.admitIn(trx, account, images);
            await context.budgets?.admitIn(trx, account, reserved);
          },
        );
        if (callbackUrl !== undefined) {
          const { generationId } = created;
          await context.recordCallback(trx, { generationId, accountId: input.accountId, url: callbackUrl });
        }
        if (claim)
          await context.idempotency.recordIn(trx, claim, 200, JSON.stringify(answer(created.taskIds)));
      },
    });
  } catch (error) {
    if (!(error instanceof IdempotencyClaimLostError)) throw error;
    // This request was taken for dead and its key retried: the retry's answer is the one that counts.
    throw new IdempotencyInProgress(
      'A request with this Idempotency-Key is still being processed; retry shortly',
    );
  }
}

export type GenerationsService = ReturnType<typeof createGenerationsService>;
