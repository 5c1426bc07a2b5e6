import { z } from 'zod';
import { catalogModelSchema, modelsSchema } from './catalog.js';
import { fieldError } from './field-error.js';
import { integerQuery } from './paging.js';
import { MAX_WAIT_SECONDS, taskRecordSchema } from './tasks.js';

/**
 * The wire shapes of the OpenAI-compatible Images API (`/v1/images/*`), as the official `openai`
 * client sends and reads them (its `resources/images` types). Fields Atelier cannot honour are
 * accepted and ignored, so tools that always send them keep working (docs/openai-compat.md).
 */

/** The OpenAPI document's tag of these routes. */
export const OPENAI_TAG = 'OpenAI-compatible';

export const RESPONSE_FORMATS = ['url', 'b64_json'] as const;
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number];

const ignored = (what: string) =>
  z
    .string({ error: 'must be a string' })
    .nullish()
    .describe(`${what}; accepted and ignored (the model decides)`);

/** The fields generations and edits share (edits send them as multipart fields). */
const imageRequestFields = {
  prompt: z
    .string({ error: fieldError('must be a string') })
    .describe('Non-empty after trimming, at most 8,000 characters'),
  model: z
    .string({ error: 'must be a string' })
    .nullish()
    .describe('A model id of GET /v1/models; default: its default_model. An unknown id is a 404'),
  n: z
    .number({ error: 'must be an integer' })
    .int({ error: 'must be an integer' })
    .nullish()
    .describe("Images to make, 1 to the model's maxCount; default 1"),
  size: z
    .string({ error: 'must be a string' })
    .nullish()
    .describe(
      "WIDTHxHEIGHT or auto: mapped to the model's nearest aspect, then the size class (1K/2K/4K) nearest in megapixels; default auto (1:1, 1K)",
    ),
  response_format: z
    .enum(RESPONSE_FORMATS, { error: 'must be one of url, b64_json' })
    .nullish()
    .describe(
      "url: Atelier's stable /files/… URL only; b64_json: the image bytes (base64) only; absent: both (b64_json, as GPT image models answer, and url)",
    ),
  quality: z
    .string({ error: 'must be a string' })
    .nullish()
    .describe(
      "low, medium, high, xhigh or max: passed to the model when its catalog entry lists it in qualities (else 400, param quality); auto, standard and hd send none (the reservation then assumes the model's highest); ignored by models that offer no qualities",
    ),
  output_format: ignored('png, jpeg or webp: the result keeps the format the model produced'),
  user: ignored('An end-user id'),
  background: z
    .string({ error: 'must be a string' })
    .nullish()
    .describe(
      'auto or opaque: accepted (the model decides); transparent is refused (400, param background): no model of the catalog makes transparent images',
    ),
  callback_url: z
    .string({ error: 'must be a string' })
    .nullish()
    .describe(
      "Optional webhook URL (Atelier's, not OpenAI's): receives the signed task record when each task ends, as callbackUrl on POST /api/v1/generate",
    ),
};

const ASYNC_NOTE =
  "Atelier's, not OpenAI's: true answers 202 at once with the task envelope (as the header Prefer: respond-async does); default false (synchronous)";

const STREAM_NOTE =
  'true: answers an event stream (text/event-stream) of partial_image events, then one completed event with the image and usage (docs/openai-compat.md#streaming); n must then be 1';
const PARTIAL_IMAGES_NOTE =
  'With stream: partial frames to send, 0 to 3 (default 0), where the model can give them (the local renderer can; other providers send none)';

/** POST /v1/images/generations (JSON). */
export const openAiGenerateBodySchema = z
  .looseObject({
    ...imageRequestFields,
    style: ignored('vivid or natural'),
    moderation: ignored('low or auto'),
    async: z.boolean({ error: 'must be a boolean' }).nullish().describe(ASYNC_NOTE),
    stream: z.boolean({ error: 'must be a boolean' }).nullish().describe(STREAM_NOTE),
    partial_images: z
      .number({ error: 'must be an integer' })
      .int({ error: 'must be an integer' })
      .nullish()
      .describe(PARTIAL_IMAGES_NOTE),
  })
  .meta({
    id: 'OpenAiImageGenerateRequest',
    description: 'OpenAI Images generate request',
    examples: [{ model: 'base-image-2', prompt: 'A lighthouse at dawn', n: 2, size: '1536x1024' }],
  });

export type OpenAiGenerateBody = z.output<typeof openAiGenerateBodySchema>;

/** The text fields of POST /v1/images/edits, as read from the multipart form (numbers arrive as text). */
export const openAiEditFieldsSchema = z.looseObject({
  ...imageRequestFields,
  n: z
    .string()
    .regex(/^\s*\d+\s*$/, 'must be an integer')
    .transform(Number)
    .nullish()
    .describe(imageRequestFields.n.description ?? ''),
  async: z
    .string()
    .regex(/^\s*(true|false)\s*$/i, 'must be true or false')
    .transform((text) => text.trim().toLowerCase() === 'true')
    .nullish()
    .describe(ASYNC_NOTE),
});

/** The streaming fields of POST /v1/images/edits, as read from the multipart form. */
export const openAiEditStreamFieldsSchema = z.looseObject({
  stream: z
    .string()
    .regex(/^\s*(true|false)\s*$/i, 'must be true or false')
    .transform((text) => text.trim().toLowerCase() === 'true')
    .nullish()
    .describe(STREAM_NOTE),
  partial_images: z
    .string()
    .regex(/^\s*\d+\s*$/, 'must be an integer')
    .transform(Number)
    .nullish()
    .describe(PARTIAL_IMAGES_NOTE),
});

/** POST /v1/images/edits as the document shows it (the handler reads the multipart stream itself). */
export const openAiEditFormSchema = z
  .object({
    image: z
      .string()
      .meta({ contentMediaType: 'application/octet-stream' })
      .describe(
        'The reference image; repeat the part (or name it image[]) for several: one image = edit, several = fusion (models that list fusion)',
      ),
    mask: z
      .string()
      .meta({ contentMediaType: 'image/png' })
      .optional()
      .describe(
        'A PNG the size of the (first) image whose fully transparent pixels (alpha 0) say where to edit; only on models that list masks (GET /v1/models), else 400 param mask',
      ),
    prompt: z.string(),
    model: z.string().optional(),
    n: z.string().optional().describe('An integer'),
    size: z.string().optional(),
    response_format: z.enum(RESPONSE_FORMATS).optional(),
    async: z.enum(['true', 'false']).optional().describe(ASYNC_NOTE),
    callback_url: z
      .string()
      .optional()
      .describe(imageRequestFields.callback_url.description ?? ''),
    stream: z.enum(['true', 'false']).optional().describe(STREAM_NOTE),
    partial_images: z.string().optional().describe(`An integer. ${PARTIAL_IMAGES_NOTE}`),
  })
  .describe('Multipart form: image (or image[]) parts and text fields; other fields are ignored');

/** One image of an answer: `url`, `b64_json`, or both when the request named no response_format. */
export const openAiImageSchema = z.object({
  url: z
    .string()
    .optional()
    .describe("Atelier's stable URL of the result (response_format url, or none given)"),
  b64_json: z
    .string()
    .optional()
    .describe('The image bytes, base64 (response_format b64_json, or none given)'),
  revised_prompt: z.string().optional().describe('Never sent: Atelier does not rewrite prompts'),
});

/** Token usage as OpenAI reports it for GPT image models (never invented by Atelier). */
export const openAiUsageSchema = z.object({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  total_tokens: z.number().int(),
  input_tokens_details: z
    .object({ image_tokens: z.number().int(), text_tokens: z.number().int() })
    .optional(),
});

export type OpenAiUsage = z.output<typeof openAiUsageSchema>;

/** The answer of both image routes (OpenAI's `ImagesResponse`). */
export const openAiImagesResponseSchema = z
  .object({
    created: z.number().int().describe('Unix seconds when the request was accepted'),
    data: z.array(openAiImageSchema).describe('The images that completed, in task order'),
    size: z
      .string()
      .optional()
      .describe('WIDTHxHEIGHT of the first image as produced (may differ from the size asked)'),
    output_format: z
      .string()
      .optional()
      .describe('png, jpeg or webp: the format of the first image as produced'),
    usage: openAiUsageSchema
      .optional()
      .describe(
        'Token usage summed over the images, when the upstream reported it (OpenAI’s GPT image models); absent otherwise',
      ),
  })
  .meta({
    id: 'OpenAiImagesResponse',
    description: 'OpenAI Images response',
    examples: [
      {
        created: 1795300990,
        data: [{ b64_json: 'iVBORw0KGgo…', url: 'http://localhost:8080/files/results/tsk_4f9c2a7e.png' }],
        size: '1024x1024',
        output_format: 'png',
      },
    ],
  });

export type OpenAiImagesResponse = z.output<typeof openAiImagesResponseSchema>;

/** OpenAI's error body, answered on the OpenAI-compatible routes only. */
export const openAiErrorBodySchema = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.string().describe('invalid_request_error, rate_limit_error or server_error'),
      param: z.string().nullable().describe('The request field to blame, when one is'),
      code: z.string().nullable().describe("Atelier's error type (invalid_api_key, model_not_found, …)"),
    }),
  })
  .meta({
    id: 'OpenAiError',
    description: 'OpenAI error',
    examples: [
      {
        error: {
          message: 'size 100x900 is not supported by model flash',
          type: 'invalid_request_error',
          param: 'size',
          code: 'invalid_request',
        },
      },
    ],
  });

export type OpenAiErrorBody = z.output<typeof openAiErrorBodySchema>;

export const IMAGE_TASK_STATUSES = ['queued', 'in_progress', 'completed', 'failed'] as const;

/**
 * The answer of an asynchronous image request (202) and of its GET: Atelier's envelope in OpenAI's
 * manner (an id, an object type, created), the task ids, and once done the synchronous answer's
 * fields (data, size, output_format, usage) or OpenAI's error object.
 */
export const openAiImageTaskSchema = openAiImagesResponseSchema
  .extend({
    id: z.string().describe('Opaque id of the request: GET /v1/images/generations/{id} reads it'),
    object: z.enum(['image.generation.task', 'image.edit.task']),
    status: z
      .enum(IMAGE_TASK_STATUSES)
      .describe(
        'queued: no task started; in_progress: some task started or ended, not all; completed: every task ended and some completed (data holds them); failed: every task failed (error says why)',
      ),
    task_ids: z.array(z.string()).describe('One task per image, as POST /api/v1/generate answers'),
    tasks: z
      .array(taskRecordSchema)
      .optional()
      .describe('On GET: the task records, in task order, as GET /api/v1/tasks answers them'),
    data: openAiImagesResponseSchema.shape.data.describe(
      'Empty until completed; then the images, as the synchronous answer gives them',
    ),
    error: openAiErrorBodySchema.shape.error
      .optional()
      .describe(
        'When failed: the error the synchronous request would have answered (code generation_failed)',
      ),
  })
  .meta({
    id: 'OpenAiImageTask',
    description: 'Asynchronous OpenAI image request',
    examples: [
      {
        id: 'imgtask_WzEsImciLDE3OTUzMDA5OTAsImJvdGgiLCJ0c2tfNGY5YzJhN2UiXQ',
        object: 'image.generation.task',
        created: 1795300990,
        status: 'queued',
        task_ids: ['tsk_4f9c2a7e1b3d5c6a8e0f'],
        data: [],
      },
    ],
  });

export type OpenAiImageTask = z.output<typeof openAiImageTaskSchema>;

export const openAiImageTaskParamsSchema = z.object({
  id: z.string().describe('The id of a 202 answer'),
});

export const openAiImageTaskQuerySchema = z.object({
  wait: integerQuery({ fallback: 0, min: 0, max: MAX_WAIT_SECONDS }).describe(
    `Long-poll: wait up to this many seconds for every task to end (0–${MAX_WAIT_SECONDS}; default 0)`,
  ),
});

/** A model of GET /v1/models: the catalog's model object, or an alias of one (`alias_of`). */
export const openAiModelSchema = catalogModelSchema
  .extend({
    alias_of: z
      .string()
      .optional()
      .describe(
        'On an alias (an OpenAI or Google model id): the Atelier model it names, whose fields it carries',
      ),
  })
  .meta({ id: 'OpenAiModel', description: 'A model or model alias (an OpenAI model object)' });

/** GET /v1/models: the catalog's models, then every alias as an entry of its own. */
export const openAiModelsSchema = modelsSchema
  .extend({ data: z.array(openAiModelSchema) })
  .meta({ id: 'OpenAiModels', description: "Models and their aliases, in OpenAI's list shape" });

export type OpenAiModel = z.output<typeof openAiModelSchema>;
export type OpenAiModels = z.output<typeof openAiModelsSchema>;

export const openAiModelParamsSchema = z.object({ model: z.string().describe('A model id or alias') });
