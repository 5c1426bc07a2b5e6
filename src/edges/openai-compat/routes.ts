import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  OPENAI_TAG,
  openAiEditFormSchema,
  openAiEditStreamFieldsSchema,
  openAiErrorBodySchema,
  openAiGenerateBodySchema,
  openAiImagesResponseSchema,
  openAiImageTaskParamsSchema,
  openAiImageTaskQuerySchema,
  openAiImageTaskSchema,
  openAiModelParamsSchema,
  openAiModelSchema,
  openAiModelsSchema,
} from '../../base/contract/openai.js';
import {
  openAiImageEditEventSchema,
  openAiImageGenerationEventSchema,
} from '../../base/contract/openai-stream.js';
import { parseInput } from '../../base/contract/parse-input.js';
import { aboutReferenceField, DomainError } from '../../base/domain/errors.js';
import type { Account } from '../../capabilities/accounts/accounts-repository.js';
import type { Catalog } from '../../capabilities/catalog/catalog.js';
import type { IdempotencyRepository } from '../../capabilities/idempotency/idempotency-repository.js';
import { MAX_UPLOAD_BYTES } from '../../capabilities/uploads/temp-file.js';
import type { UploadsService } from '../../capabilities/uploads/uploads-service.js';
import { type AccountResolver, accountOf, requireAccount } from '../http/authentication.js';
import { installErrorBodies } from '../http/error-handler.js';
import { idempotencyHeadersSchema, installIdempotency } from '../http/idempotency-hooks.js';
import { jsonResponse } from '../http/route-responses.js';
import { EDIT_FORM_LIMITS, MAX_EDIT_IMAGES, readEditForm } from './edit-form.js';
import type { ImagePlan, ImageRequests } from './image-requests.js';
import type { ImageStreams, StreamKind } from './image-stream.js';
import {
  acceptedImageTask,
  type ImageTaskKind,
  imageTaskSeal,
  prefersAsync,
  readImageTask,
} from './image-tasks.js';
import { openAiModel, openAiModelList } from './models.js';
import { OPENAI_ERROR_STATUSES, openAiErrorBodies } from './openai-errors.js';

type ErrorStatus = keyof typeof OPENAI_ERROR_STATUSES;

/** The error answers a route declares, in OpenAI's shape (the serializer keeps param and code). */
function openAiErrorResponses(statuses: readonly ErrorStatus[]) {
  return Object.fromEntries(
    [...statuses, 500 as const].map((status) => [
      status,
      {
        description: OPENAI_ERROR_STATUSES[status],
        content: { 'application/json': { schema: openAiErrorBodySchema } },
      },
    ]),
  );
}

const IMAGE_ERRORS = [400, 401, 402, 403, 404, 409, 413, 422, 429, 502, 504] as const;
const SYNC_NOTE =
  'Synchronous: answers once every image has ended (ceiling ATELIER_OPENAI_WAIT_MS, default 300 s). Asynchronous on request (header Prefer: respond-async, or async: true): 202 at once with the task envelope and a Location to GET (header Preference-Applied: respond-async when the header asked). callback_url registers the signed webhook of POST /api/v1/generate. Errors use OpenAI’s shape { error: { message, type, param, code } }.';
/** The 200 answer: the images as JSON, or with stream: true the image's event stream. */
const imagesOrStream = (
  events: typeof openAiImageGenerationEventSchema | typeof openAiImageEditEventSchema,
) => ({
  description:
    'The images that completed (application/json); with stream: true, an event stream of the image (text/event-stream), whose events’ data the schema describes',
  content: {
    'application/json': { schema: openAiImagesResponseSchema },
    'text/event-stream': { schema: events },
  },
});
const ACCEPTED = jsonResponse(
  'Accepted (asynchronous): the request’s id and tasks; Location is its GET',
  openAiImageTaskSchema,
);

/**
 * The OpenAI Images API beside v1 (registered under `/v1`, before the v1 alias): the same
 * accounts and keys, catalog, generations, storage and history. Every error of these routes,
 * authentication and schema refusals included, leaves in OpenAI's shape (its error bodies,
 * registered for these routes with installErrorBodies and used by the one error handler).
 */
export async function openAiCompatRoutes(
  parent: FastifyInstance,
  deps: {
    catalog: Catalog;
    images: ImageRequests;
    streams: ImageStreams;
    uploads: UploadsService;
    idempotency: IdempotencyRepository;
    resolvers: AccountResolver[];
    /** The key of async ids' seals (derived from the master key). */
    stateIdKey: Buffer;
  },
) {
  installErrorBodies(parent, openAiErrorBodies);
  parent.addHook('onRequest', requireAccount(deps.resolvers));
  installIdempotency(parent, { repository: deps.idempotency });
  const app = parent.withTypeProvider<ZodTypeProvider>();

  // Waits still open when the server closes answer at once (504 with their task ids).
  const openWaits = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const stop of [...openWaits]) stop();
  });
  /**
   * Runs a planned request; its wait ends early when the caller goes away. The
   * response's `close` (not the request's, which fires once the body is read) is what says
   * the connection is gone before an answer was sent.
   */
  async function untilGone<T>(reply: FastifyReply, wait: (onWait: (stop: () => void) => void) => Promise<T>) {
    let stop = () => {};
    const gone = () => stop();
    reply.raw.once('close', gone);
    try {
      return await wait((stopWait) => {
        stop = stopWait;
        openWaits.add(stopWait);
      });
    } finally {
      reply.raw.off('close', gone);
      openWaits.delete(stop);
    }
  }
  const runAndWait = (reply: FastifyReply, account: Account, plan: ImagePlan, urls: string[]) =>
    untilGone(reply, (onWait) => deps.images.run(account, plan, urls, onWait));

  /** stream: true — OpenAI's image event stream (image-stream.ts); the server's close ends it. */
  const streamOut = (
    request: FastifyRequest,
    reply: FastifyReply,
    plan: ImagePlan,
    urls: string[],
    kind: StreamKind,
    quality: string | null | undefined,
  ) =>
    deps.streams.stream({
      reply,
      account: accountOf(request),
      plan,
      imageUrls: urls,
      kind,
      echo: { quality },
      onStop: (stop) => {
        openWaits.add(stop);
        return () => void openWaits.delete(stop);
      },
    });

  /** Asynchronous when the Prefer header or the body's `async` asks it. */
  const wantsAsync = (request: FastifyRequest, field: boolean | null | undefined) =>
    field === true || prefersAsync(request.headers.prefer);
  /** Submits without waiting: 202, the envelope, Location of its GET. */
  async function accept(
    request: FastifyRequest,
    reply: FastifyReply,
    plan: ImagePlan,
    urls: string[],
    kind: ImageTaskKind,
  ) {
    const submitted = await deps.images.submit(accountOf(request), plan, urls);
    const seal = imageTaskSeal(deps.stateIdKey, accountOf(request).id);
    const answer = acceptedImageTask({ ...submitted, kind, responseFormat: plan.responseFormat }, seal);
    if (prefersAsync(request.headers.prefer)) reply.header('preference-applied', 'respond-async');
    reply.header(
      'location',
      `${parent.prefix}/images/${kind === 'edit' ? 'edits' : 'generations'}/${answer.id}`,
    );
    return reply.code(202).send(answer);
  }

  for (const [kind, path] of [
    ['generation', 'generations'],
    ['edit', 'edits'],
  ] as const) {
    app.get(
      `/images/${path}/:id`,
      {
        schema: {
          tags: [OPENAI_TAG],
          operationId: kind === 'edit' ? 'openAiImageEditTask' : 'openAiImageGenerationTask',
          summary: `Read an asynchronous image ${kind} (Atelier’s, beside OpenAI’s routes)`,
          description:
            'The id of a 202 answer (either GET path reads any such id): queued or in_progress with the task records; completed with the synchronous answer (data as response_format asked, size, output_format) and the records; failed with OpenAI’s error object. wait=N long-polls up to N seconds for every task to end. Only the owner’s ids: any other is a 404 in OpenAI’s shape.',
          params: openAiImageTaskParamsSchema,
          querystring: openAiImageTaskQuerySchema,
          response: {
            200: jsonResponse('The request’s state', openAiImageTaskSchema),
            ...openAiErrorResponses([400, 401, 404]),
          },
        },
      },
      async (request, reply) => {
        const accountId = accountOf(request).id;
        const waitMs = request.query.wait * 1000;
        return untilGone(reply, (onWait) =>
          readImageTask(
            deps.images,
            accountId,
            imageTaskSeal(deps.stateIdKey, accountId),
            request.params.id,
            waitMs,
            onWait,
          ),
        );
      },
    );
  }

  app.get(
    '/models',
    {
      schema: {
        tags: [OPENAI_TAG],
        operationId: 'openAiModels',
        summary: 'List models (OpenAI shape)',
        description:
          'The answer of GET /api/v1/models (OpenAI’s list with Atelier’s catalog fields and default_model), then each model alias (an OpenAI or Google model id) as an entry with alias_of. Errors in OpenAI’s shape.',
        response: {
          200: jsonResponse('The catalog and its aliases as an OpenAI model list', openAiModelsSchema),
          ...openAiErrorResponses([401]),
        },
      },
    },
    async () => openAiModelList(deps.catalog),
  );

  app.get(
    '/models/:model',
    {
      schema: {
        tags: [OPENAI_TAG],
        operationId: 'openAiModel',
        summary: 'Retrieve a model (OpenAI shape)',
        description:
          'A model of the catalog, or an alias (with alias_of), as GET /v1/models lists it; an unknown id is a 404 model_not_found. Errors in OpenAI’s shape.',
        params: openAiModelParamsSchema,
        response: {
          200: jsonResponse('The model', openAiModelSchema),
          ...openAiErrorResponses([401, 404]),
        },
      },
    },
    async (request) => openAiModel(deps.catalog, request.params.model),
  );

  app.post(
    '/images/generations',
    {
      schema: {
        tags: [OPENAI_TAG],
        operationId: 'openAiGenerateImages',
        summary: 'Create images (OpenAI Images API)',
        description: `${SYNC_NOTE} Idempotency-Key works as on POST /api/v1/generate.`,
        headers: idempotencyHeadersSchema,
        body: openAiGenerateBodySchema,
        response: {
          200: imagesOrStream(openAiImageGenerationEventSchema),
          202: ACCEPTED,
          ...openAiErrorResponses(IMAGE_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const plan = deps.images.plan({ ...body, references: 0 });
      if (deps.streams.prepare(plan, body))
        return streamOut(request, reply, plan, [], 'image_generation', body.quality);
      if (wantsAsync(request, body.async)) return accept(request, reply, plan, [], 'generation');
      return runAndWait(reply, accountOf(request), plan, []);
    },
  );

  await app.register(async (edits) => {
    await edits.register(multipart, {
      limits: { fileSize: MAX_UPLOAD_BYTES, ...EDIT_FORM_LIMITS },
    });
    edits.withTypeProvider<ZodTypeProvider>().post(
      '/images/edits',
      {
        bodyLimit: (MAX_EDIT_IMAGES + 1) * MAX_UPLOAD_BYTES,
        schema: {
          tags: [OPENAI_TAG],
          operationId: 'openAiEditImages',
          summary: 'Edit or blend images (OpenAI Images API)',
          description: `One image = edit, several = fusion (models that list fusion). Images pass the checks of POST /api/v1/upload and join the asset library. mask (a PNG the image's size; fully transparent pixels are edited) on models that list masks, else 400 param mask. ${SYNC_NOTE} Idempotency-Key is not applied to multipart bodies (as on /api/v1/upload).`,
          documentedOnlyBodies: { 'multipart/form-data': { schema: openAiEditFormSchema } },
          response: {
            200: imagesOrStream(openAiImageEditEventSchema),
            202: ACCEPTED,
            ...openAiErrorResponses([...IMAGE_ERRORS, 415]),
          },
        },
      },
      async (request, reply) => {
        const account = accountOf(request);
        const form = await readEditForm(request);
        let plan: ImagePlan;
        let streaming = false;
        const urls: string[] = [];
        // The temp files go as soon as the images are stored, not after the wait.
        try {
          plan = deps.images.plan({ ...form.fields, references: form.images.length, mask: !!form.mask });
          const streamFields = parseInput(openAiEditStreamFieldsSchema, form.fields, 'The form');
          streaming = deps.streams.prepare(plan, streamFields);
          for (const [index, image] of form.images.entries()) {
            try {
              urls.push((await deps.uploads.ingestFile(account.id, image.path)).url);
            } catch (error) {
              throw error instanceof DomainError
                ? aboutReferenceField(error, `image[${index}]`, 'image')
                : error;
            }
          }
          if (form.mask) {
            const mask = await deps.uploads.ingestFile(account.id, form.mask.path).catch((error) => {
              throw error instanceof DomainError ? aboutReferenceField(error, 'mask', 'mask') : error;
            });
            plan.maskUrl = mask.url;
          }
        } finally {
          await form.cleanup();
        }
        if (streaming) return streamOut(request, reply, plan, urls, 'image_edit', form.fields.quality);
        if (wantsAsync(request, form.fields.async)) return accept(request, reply, plan, urls, 'edit');
        return runAndWait(reply, account, plan, urls);
      },
    );
  });
}
