import { z } from 'zod';

/**
 * The wire shapes of the OpenAI Responses API's image tool (`/v1/responses` with
 * `tools: [{ type: "image_generation" }]`), as the official `openai` client sends and reads them
 * (its `resources/responses` types: `ResponseCreateParams`, `Response`,
 * `ResponseOutputItem.ImageGenerationCall`, the `response.*` stream events). Fields Atelier cannot
 * honour (instructions, temperature, reasoning, …) are accepted and ignored.
 */

/** One content part of an input message: text, or an image (a data URL, an http(s) URL). */
const contentPartSchema = z.looseObject({
  type: z.string().describe('input_text, input_image (output_text of earlier assistant turns is skipped)'),
  text: z.string().optional(),
  image_url: z.string().nullish().describe('input_image: a data: URL (base64) or an http(s) URL'),
  file_id: z.string().nullish().describe('input_image: not supported (400 param input)'),
});

/** One input item: a message (`role` + content), or an earlier `image_generation_call` by id. */
const inputItemSchema = z.looseObject({
  type: z.string().optional().describe('message (the default), image_generation_call, item_reference'),
  role: z.string().optional().describe('user, assistant, system or developer'),
  content: z.union([z.string(), z.array(contentPartSchema)]).optional(),
  id: z
    .string()
    .optional()
    .describe('image_generation_call / item_reference: an earlier image’s id (ig_…): it becomes the parent'),
});

/** The image tool, as OpenAI's `Tool.ImageGeneration`. */
export const imageGenerationToolSchema = z.looseObject({
  type: z.string().describe('image_generation (other tools are refused)'),
  model: z.string().optional().describe('The Atelier model (id or alias) that makes the image'),
  size: z.string().optional().describe('WIDTHxHEIGHT or auto, mapped as on /v1/images/generations'),
  quality: z.string().optional().describe('low, medium, high or auto'),
  output_format: z.string().optional().describe('Echoed; the image is the model’s format (png)'),
  background: z.string().optional().describe('auto or opaque; transparent is refused'),
  partial_images: z.number().optional().describe('0 to 3 partial frames when stream is true'),
});

export const openAiResponseCreateSchema = z
  .looseObject({
    model: z
      .string()
      .optional()
      .describe(
        'The tool’s model makes the image when given; else this, when it is a catalog model (id or alias); any other name (a chat model such as gpt-5) uses the catalog default',
      ),
    input: z.union([z.string(), z.array(inputItemSchema)]).describe('A prompt, or a list of input items'),
    tools: z.array(imageGenerationToolSchema).optional().describe('One image_generation tool'),
    previous_response_id: z
      .string()
      .nullish()
      .describe('A stored response of this account: the new image refines its last image'),
    stream: z.boolean().nullish().describe('Server-Sent Events of the response (response.* events)'),
    store: z
      .boolean()
      .nullish()
      .describe('Default true: the response is kept for GET and previous_response_id'),
    background: z
      .boolean()
      .nullish()
      .describe('Answer at once (status queued); GET /v1/responses/{id} shows the result'),
    instructions: z.string().nullish(),
    metadata: z.record(z.string(), z.string()).nullish(),
  })
  .describe('OpenAI Responses API request with the image_generation tool');

export type OpenAiResponseCreate = z.output<typeof openAiResponseCreateSchema>;
export type ResponseInputItem = z.output<typeof inputItemSchema>;
export type ImageGenerationTool = z.output<typeof imageGenerationToolSchema>;

export const RESPONSE_STATUSES = ['queued', 'in_progress', 'completed', 'failed'] as const;

/** One image of a response (OpenAI's `ImageGenerationCall`). */
export const imageGenerationCallSchema = z.looseObject({
  type: z.literal('image_generation_call'),
  id: z.string().describe('ig_…; names this image in later input (its task id is tsk_ + the same suffix)'),
  status: z.enum(['in_progress', 'generating', 'completed', 'failed']),
  result: z.string().nullable().describe('The image bytes, base64, once completed'),
  revised_prompt: z.string().nullable().describe('The prompt the image was made from'),
  action: z.enum(['generate', 'edit']).optional(),
  background: z.string().nullish(),
  output_format: z.string().nullish(),
  quality: z.string().nullish(),
  size: z.string().nullish(),
});

export type ImageGenerationCall = z.output<typeof imageGenerationCallSchema>;

/** OpenAI's `Response`, as Atelier fills it. */
export const openAiResponseSchema = z
  .looseObject({
    id: z.string().describe('resp_…'),
    object: z.literal('response'),
    created_at: z.number().int().describe('Unix seconds'),
    status: z.enum(RESPONSE_STATUSES),
    model: z.string().describe('The Atelier model that made the images'),
    output: z.array(imageGenerationCallSchema),
    previous_response_id: z.string().nullable(),
    error: z.looseObject({ code: z.string(), message: z.string() }).nullable(),
    usage: z.looseObject({}).nullable().describe('Tokens the upstream reported; zeros when none'),
    background: z.boolean(),
    store: z.boolean(),
  })
  .meta({ id: 'OpenAiResponse', description: 'OpenAI Responses API response' });

export type OpenAiResponse = z.output<typeof openAiResponseSchema>;

export const openAiResponseParamsSchema = z.object({
  id: z.string().describe('A response id (resp_…)'),
});

export const openAiResponseDeletedSchema = z.object({
  id: z.string(),
  object: z.literal('response'),
  deleted: z.literal(true),
});

export const RESPONSE_STREAM_EVENTS = [
  'response.created',
  'response.in_progress',
  'response.output_item.added',
  'response.image_generation_call.in_progress',
  'response.image_generation_call.generating',
  'response.image_generation_call.partial_image',
  'response.image_generation_call.completed',
  'response.output_item.done',
  'response.completed',
  'response.failed',
  'error',
] as const;

/** One event of POST /v1/responses with stream: true (OpenAI's `ResponseStreamEvent`, the image tool's). */
export const openAiResponseStreamEventSchema = z
  .looseObject({
    type: z.enum(RESPONSE_STREAM_EVENTS),
    sequence_number: z.number().int().describe('0, 1, 2, … in the order sent'),
    response: openAiResponseSchema
      .optional()
      .describe('response.created, .in_progress, .completed, .failed: the response so far'),
    output_index: z.number().int().optional().describe('The item’s place in output (0)'),
    item: imageGenerationCallSchema.optional().describe('response.output_item.added / .done: the image item'),
    item_id: z.string().optional().describe('response.image_generation_call.*: the image item’s id'),
    partial_image_b64: z.string().optional().describe('.partial_image: a coarser frame, PNG base64'),
    partial_image_index: z.number().int().optional().describe('.partial_image: 0-based, in order'),
    code: z.string().optional().describe('error: why the stream ended early (wait_timeout, internal_error)'),
    message: z.string().optional().describe('error: what happened'),
  })
  .meta({
    id: 'OpenAiResponseStreamEvent',
    description:
      'Server-Sent Events: response.created, response.in_progress, response.output_item.added, response.image_generation_call.in_progress, .generating, 0 to partial_images .partial_image, .completed, response.output_item.done, response.completed (or response.failed when the image failed; an error event when it was not ready in time). Each is `event: <type>` then `data: <this object as JSON>`; a `: keep-alive` comment every 15 s.',
  });
