import { z } from 'zod';
import { openAiErrorBodySchema, openAiUsageSchema } from './openai.js';

/**
 * The events of `stream: true` on POST /v1/images/generations and /v1/images/edits, as OpenAI's
 * SDK reads them (`ImageGenStreamEvent`, `ImageEditStreamEvent` of openai/resources/images): each
 * event is `event: <type>` and `data: <one of these objects as JSON>`. The document lists them as
 * the text/event-stream answer's schema, the way OpenAI's own document does.
 */

const frameFields = {
  b64_json: z.string().describe('The image bytes, base64'),
  background: z.enum(['opaque']).describe('Every image of the catalog is opaque'),
  created_at: z.number().int().describe('Unix seconds when the event was sent'),
  output_format: z.string().describe('png, jpeg or webp'),
  quality: z
    .enum(['low', 'medium', 'high', 'auto'])
    .describe('The request’s quality, echoed (auto when none)'),
  size: z.string().describe('WIDTHxHEIGHT as produced'),
};

function streamEventSchema(kind: 'image_generation' | 'image_edit', id: string, description: string) {
  return z
    .discriminatedUnion('type', [
      z
        .object({
          type: z.literal(`${kind}.partial_image`),
          ...frameFields,
          output_format: z.literal('png').describe('Partial frames are PNG'),
          partial_image_index: z.number().int().describe('0-based, in order'),
        })
        .describe('A partial frame: a coarser version of the image still rendering (0 to partial_images)'),
      z
        .object({
          type: z.literal(`${kind}.completed`),
          ...frameFields,
          usage: openAiUsageSchema.describe(
            'Token usage the upstream reported (OpenAI’s GPT image models, Gemini); zeros when it reported none',
          ),
        })
        .describe('The image; the stream ends after it'),
      openAiErrorBodySchema
        .extend({ type: z.literal('error') })
        .describe(
          'The request failed after the stream began (the image failed, or was not ready in time): OpenAI’s error object; the stream ends after it',
        ),
    ])
    .meta({ id, description });
}

const STREAM =
  'Server-Sent Events: 0 to partial_images `partial_image` events, then one `completed` event, or one `error` event; each is `event: <type>` then `data: <this object as JSON>`. A `: keep-alive` comment line every 15 s. Errors before the stream begins are ordinary error answers.';

/** One event of a generation's stream. */
export const openAiImageGenerationEventSchema = streamEventSchema(
  'image_generation',
  'OpenAiImageGenerationStreamEvent',
  `An event of POST /v1/images/generations with stream: true. ${STREAM}`,
);

/** One event of an edit's stream. */
export const openAiImageEditEventSchema = streamEventSchema(
  'image_edit',
  'OpenAiImageEditStreamEvent',
  `An event of POST /v1/images/edits with stream: true. ${STREAM}`,
);
