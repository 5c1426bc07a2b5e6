import { z } from 'zod';

/**
 * The wire shapes of chat completions with image output (`POST /v1/chat/completions`), the dialect
 * OpenRouter and Vercel's AI gateway speak: OpenAI's chat body plus `modalities` and
 * `image_config`; the assistant message carries its images in `images[]` as `image_url` parts.
 * Fields Atelier has no use for (temperature, tools, user…) are accepted and ignored.
 */

export const CHAT_IMAGE_URL_FORMATS = ['data', 'url'] as const;

/** An `image_url` part's value: `{ url }` as OpenAI sends it, or the bare string some apps send. */
const imageUrlValue = z.union([
  z.string({ error: 'must be a string' }),
  z.looseObject({ url: z.string({ error: 'must be a string' }) }),
]);

const contentPartSchema = z.looseObject({
  type: z.string({ error: 'must be a string' }),
  text: z.string({ error: 'must be a string' }).nullish(),
  image_url: imageUrlValue.nullish(),
});

export const chatImagePartSchema = z
  .object({
    type: z.literal('image_url'),
    image_url: z.object({ url: z.string().describe('A data URL (base64), or Atelier’s own file URL') }),
  })
  .meta({ id: 'OpenAiChatImage' });

const chatMessageSchema = z.looseObject({
  role: z.string({ error: 'must be a string' }),
  content: z
    .union([z.string(), z.array(contentPartSchema)], { error: 'must be a string or an array of parts' })
    .nullish(),
  images: z
    .array(z.looseObject({ type: z.string().nullish(), image_url: imageUrlValue }), {
      error: 'must be an array of image_url parts',
    })
    .nullish(),
});

export type ChatMessage = z.output<typeof chatMessageSchema>;
export type ChatContentPart = z.output<typeof contentPartSchema>;

export const openAiChatBodySchema = z
  .looseObject({
    model: z
      .string({ error: 'must be a string' })
      .nullish()
      .describe('A model id or alias of GET /v1/models; default: its default_model. An unknown id is a 404'),
    messages: z
      .array(chatMessageSchema, { error: 'must be an array of messages' })
      .min(1, { error: 'must not be empty' })
      .describe(
        "The conversation. The prompt is the last user message's text; image_url parts of user messages are references (edit, fusion); the latest assistant image that is one of this account's works becomes the parent (the new work is its next version)",
      ),
    modalities: z
      .array(z.string({ error: 'must be a string' }), { error: 'must be an array' })
      .nullish()
      .describe(
        'Output modalities: must include image (["image","text"] or ["image"]); ["text"] alone is refused (every model makes images only). Absent: ["image","text"]',
      ),
    image_config: z
      .looseObject({
        aspect_ratio: z.string({ error: 'must be a string' }).nullish(),
        image_size: z.string({ error: 'must be a string' }).nullish(),
      })
      .nullish()
      .describe(
        "aspect_ratio (W:H from the model's aspects) and image_size (1K, 2K, 4K from its sizes). Default: 1:1 (an edit keeps its reference's shape), 1K",
      ),
    n: z
      .number({ error: 'must be an integer' })
      .int({ error: 'must be an integer' })
      .nullish()
      .describe("Images to make, 1 to the model's maxCount, all in choices[0].message.images; default 1"),
    stream: z.boolean({ error: 'must be a boolean' }).nullish(),
    image_url_format: z
      .enum(CHAT_IMAGE_URL_FORMATS, { error: 'must be one of data, url' })
      .nullish()
      .describe(
        "Extra field: data (default) answers each image as a data URL (base64); url as Atelier's stable /files/… URL",
      ),
    async: z
      .boolean({ error: 'must be a boolean' })
      .nullish()
      .describe(
        'Extra field: true answers at once (202) with the image task envelope, as Prefer: respond-async does',
      ),
    callback_url: z
      .string({ error: 'must be a string' })
      .nullish()
      .describe("Extra field: Atelier's signed webhook for the generation's tasks"),
  })
  .meta({ id: 'OpenAiChatCompletionRequest' });

export type OpenAiChatBody = z.output<typeof openAiChatBodySchema>;

const chatUsageSchema = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
});

export const openAiChatCompletionSchema = z
  .object({
    id: z.string().describe('chatcmpl- and the first task id'),
    object: z.literal('chat.completion'),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        message: z.object({
          role: z.literal('assistant'),
          content: z.string().describe('A short text naming the work'),
          images: z.array(chatImagePartSchema),
        }),
        finish_reason: z.literal('stop'),
      }),
    ),
    usage: chatUsageSchema.describe('As the upstream reported it; zeros when it reported none'),
  })
  .meta({ id: 'OpenAiChatCompletion' });

export type OpenAiChatCompletion = z.output<typeof openAiChatCompletionSchema>;

export const openAiChatChunkSchema = z
  .object({
    id: z.string(),
    object: z.literal('chat.completion.chunk'),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        delta: z.object({
          role: z.literal('assistant').optional(),
          content: z.string().optional(),
          images: z.array(chatImagePartSchema).optional(),
        }),
        finish_reason: z.literal('stop').nullable(),
      }),
    ),
    usage: chatUsageSchema.optional(),
  })
  .meta({
    id: 'OpenAiChatCompletionChunk',
    description:
      'One data: line of the stream: the role, then the images (and text), then finish_reason stop with usage, then data: [DONE]. A failure after the stream began is a data: { error } line',
  });
