import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  OPENAI_TAG,
  openAiEditFormSchema,
  openAiEditStreamFieldsSchema,
} from '../../base/contract/openai.js';
import { openAiImageEditEventSchema } from '../../base/contract/openai-stream.js';
import { parseInput } from '../../base/contract/parse-input.js';
import { aboutReferenceField, DomainError } from '../../base/domain/errors.js';
import type { Account } from '../../capabilities/accounts/index.js';
import { MAX_UPLOAD_BYTES } from '../../capabilities/uploads/index.js';
import { accountOf } from '../http/authentication.js';
import { zeroRetentionAsked } from '../http/retention-header.js';
import { traceparentOf } from '../http/traceparent.js';
import { EDIT_FORM_LIMITS, type EditForm, MAX_EDIT_IMAGES, readEditForm } from './edit-form.js';
import type { ImageAnswers, OpenAiCompatDeps } from './image-answers.js';
import type { ImagePlan } from './image-requests.js';
import { ACCEPTED, IMAGE_ERRORS, imagesOrStream, openAiErrorResponses, SYNC_NOTE } from './route-docs.js';

/**
 * POST /images/edits (multipart): one image = edit, several = fusion, with an optional mask. Its
 * own plugin: the multipart parser serves this route only.
 */
export async function editRoutes(
  edits: FastifyInstance,
  { deps, answers }: { deps: OpenAiCompatDeps; answers: ImageAnswers },
) {
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
      const zeroRetention = zeroRetentionAsked(request);
      const form = await readEditForm(request);
      const { plan, urls, streaming } = await planEdit(deps, account, form);
      plan.traceparent = traceparentOf(request);
      plan.zeroRetention = zeroRetention;
      if (streaming) return answers.streamOut(request, reply, plan, urls, 'image_edit', form.fields.quality);
      if (answers.wantsAsync(request, form.fields.async))
        return answers.accept(request, reply, plan, urls, 'edit');
      return answers.runAndWait(reply, account, plan, urls);
    },
  );
}

/**
 * Plans an edit and stores its images and mask (each refusal names its form field). The temp files
 * go as soon as the images are stored, not after the wait.
 */
async function planEdit(
  deps: OpenAiCompatDeps,
  account: Account,
  form: EditForm,
): Promise<{ plan: ImagePlan; urls: string[]; streaming: boolean }> {
  try {
    const plan = deps.images.plan({ ...form.fields, references: form.images.length, mask: !!form.mask });
    const streamFields = parseInput(openAiEditStreamFieldsSchema, form.fields, 'The form');
    const streaming = deps.streams.prepare(plan, streamFields);
    const urls: string[] = [];
    for (const [index, image] of form.images.entries()) {
      try {
        urls.push((await deps.uploads.ingestFile(account.id, image.path)).url);
      } catch (error) {
        throw error instanceof DomainError ? aboutReferenceField(error, `image[${index}]`, 'image') : error;
      }
    }
    if (form.mask) {
      const mask = await deps.uploads.ingestFile(account.id, form.mask.path).catch((error) => {
        throw error instanceof DomainError ? aboutReferenceField(error, 'mask', 'mask') : error;
      });
      plan.maskUrl = mask.url;
    }
    return { plan, urls, streaming };
  } finally {
    await form.cleanup();
  }
}
