import { z } from 'zod';
import { modelFactsSchema } from './catalog.js';

/**
 * The wire shapes of the Gemini-native route (`/v1beta/models/…`), as Google's `@google/genai`
 * client sends and reads them (its `generateContent` request in the Gemini Developer API form, and
 * its `GenerateContentResponse`). Google's JSON also takes the proto's snake_case names
 * (`inline_data`, `mime_type`: Open WebUI sends them); the route reads those as the camelCase
 * names before these schemas see the body. Fields Atelier has no use for (safety settings,
 * temperature, tools, …) are accepted and ignored, so clients that always send them keep working.
 */

/** The OpenAPI document's tag of these routes. */
export const GEMINI_TAG = 'Gemini-native';

/** The OpenAPI security scheme of the key in `x-goog-api-key`. */
export const GOOGLE_API_KEY_SCHEME = 'googleApiKey';

/** What these routes accept: the key as Google's clients send it, or as a bearer token. */
export const geminiSecurity: Array<Record<string, string[]>> = [
  { [GOOGLE_API_KEY_SCHEME]: [] },
  { bearer: [] },
];

const inlineDataSchema = z
  .looseObject({
    mimeType: z.string({ error: 'must be a string' }).describe('image/png, image/jpeg, image/webp, …'),
    data: z.string({ error: 'must be a string' }).describe('The image bytes, base64'),
  })
  .describe('An image sent inline: a reference image (stored like an upload, joins the library)');

const fileDataSchema = z
  .looseObject({
    mimeType: z.string({ error: 'must be a string' }).optional(),
    fileUri: z.string({ error: 'must be a string' }).describe('An https URL Atelier fetches safely'),
  })
  .describe('An image by URL: fetched like imageUrls of POST /api/v1/generate');

const requestPartSchema = z
  .looseObject({
    text: z.string({ error: 'must be a string' }).optional().describe('Joined into the prompt'),
    inlineData: inlineDataSchema.optional(),
    fileData: fileDataSchema.optional(),
    thoughtSignature: z
      .string({ error: 'must be a string' })
      .optional()
      .describe(
        "On a model turn's image: the signature the answer carried, sent back unchanged (Atelier's own names the work the next turn refines)",
      ),
  })
  .describe(
    'One part: text (the prompt), inlineData or fileData (reference images); other kinds (thoughts, function calls, …) are ignored',
  );

const requestContentSchema = z.looseObject({
  role: z.string({ error: 'must be a string' }).optional().describe('user (default) or model'),
  parts: z.array(requestPartSchema, { error: 'must be an array of parts' }),
});

export const IMAGE_SIZE_NAMES = ['1K', '2K', '4K'] as const;

const generationConfigSchema = z
  .looseObject({
    responseModalities: z
      .array(z.string({ error: 'must be a string' }), { error: 'must be an array' })
      .optional()
      .describe('Must include IMAGE when given (Atelier answers images); TEXT alongside is accepted'),
    candidateCount: z
      .number({ error: 'must be an integer' })
      .int({ error: 'must be an integer' })
      .optional()
      .describe("Images to make, 1 to the model's maxCount (one candidate each); default 1"),
    imageConfig: z
      .looseObject({
        aspectRatio: z
          .string({ error: 'must be a string' })
          .optional()
          .describe(
            "W:H from the model's aspects; default 1:1, or the reference's shape for an edit or fusion",
          ),
        imageSize: z
          .string({ error: 'must be a string' })
          .optional()
          .describe("1K, 2K or 4K, from the model's sizes; default 1K"),
        quality: z
          .string({ error: 'must be a string' })
          .optional()
          .describe(
            "Atelier's extra field (Google's imageConfig has none): the quality tier, one of the model's qualities (GET /api/v1/models; case-insensitive); the reservation and the charge follow it. Default: the model's defaultQuality. A model without qualities refuses it",
          ),
      })
      .optional(),
  })
  .describe('Other fields (temperature, seed, …) are accepted and ignored');

/** POST /v1beta/models/{model}:generateContent (and :streamGenerateContent). */
export const geminiGenerateBodySchema = z.looseObject({
  contents: z
    .array(requestContentSchema, { error: 'must be an array of contents' })
    .min(1, { error: 'must hold at least one content' })
    .describe(
      "A conversation (a model turn with an image, then the user's new turn) edits the model's last image: the new turn's text is the prompt, its images further references; that image, when it is one of the account's works (its thoughtSignature, or its bytes), is the new work's parent. Without a model image: the text parts of user turns joined are the prompt; the image parts, in order, are the references (one = edit, several = fusion)",
    ),
  generationConfig: generationConfigSchema.optional(),
});
export type GeminiGenerateBody = z.infer<typeof geminiGenerateBodySchema>;

export const geminiModelParamsSchema = z.object({
  model: z.string().describe('A model id or alias of GET /v1beta/models (without the models/ prefix)'),
});

export const geminiStreamQuerySchema = z.looseObject({
  alt: z
    .string()
    .optional()
    .describe('sse: one server-sent event carrying the whole answer; otherwise a JSON array of it'),
});

const answerPartSchema = z.object({
  text: z.string().optional(),
  inlineData: z.object({ mimeType: z.string(), data: z.string().describe('base64') }).optional(),
  thoughtSignature: z
    .string()
    .optional()
    .describe(
      'Opaque: send the part back with it in the next turn of the conversation (the next image then refines this one)',
    ),
});

/** What the route answers: one candidate per image, Google's `GenerateContentResponse`. */
export const geminiGenerateResponseSchema = z.object({
  candidates: z.array(
    z.object({
      content: z.object({ role: z.literal('model'), parts: z.array(answerPartSchema) }),
      finishReason: z.literal('STOP'),
      index: z.number().int(),
    }),
  ),
  usageMetadata: z
    .object({
      promptTokenCount: z.number().int().optional().describe('Prompt tokens: text and images'),
      candidatesTokenCount: z.number().int().optional().describe('Tokens of the images produced'),
      thoughtsTokenCount: z
        .number()
        .int()
        .optional()
        .describe('Tokens a thinking model spent thinking, when it reported them'),
      totalTokenCount: z.number().int().optional().describe('All tokens of the calls'),
      promptTokensDetails: z
        .array(z.object({ modality: z.enum(['TEXT', 'IMAGE']), tokenCount: z.number().int() }))
        .optional()
        .describe('The prompt tokens per modality, when the upstream told them apart'),
    })
    .describe(
      'Token counts summed over the images whose upstream reported them (a Gemini or OpenAI upstream); empty when none did',
    ),
  modelVersion: z.string().describe('The catalog model that answered'),
  responseId: z.string().describe('The task ids, comma-separated (GET /api/v1/tasks?ids=…)'),
});
export type GeminiGenerateResponse = z.infer<typeof geminiGenerateResponseSchema>;

export const geminiModelSchema = z.object({
  name: z.string().describe('models/<id>'),
  baseModelId: z.string().describe('The catalog model (the alias’s target for an alias)'),
  version: z.string(),
  displayName: z.string(),
  description: z.string(),
  inputTokenLimit: z.number().int(),
  outputTokenLimit: z.number().int(),
  supportedGenerationMethods: z.array(z.string()),
  ...modelFactsSchema.shape,
});
export type GeminiModel = z.infer<typeof geminiModelSchema>;

export const geminiModelsSchema = z.object({ models: z.array(geminiModelSchema) });
export type GeminiModels = z.infer<typeof geminiModelsSchema>;

/** Google's error shape: `{ error: { code, message, status, details } }`. */
export const geminiErrorBodySchema = z.object({
  error: z.object({
    code: z.number().int().describe('The HTTP status'),
    message: z.string(),
    status: z.string().describe('INVALID_ARGUMENT, UNAUTHENTICATED, NOT_FOUND, …'),
    details: z
      .array(z.looseObject({ '@type': z.string() }))
      .describe(
        "google.rpc.ErrorInfo (reason: Atelier's error type) and, for a field, google.rpc.BadRequest",
      ),
  }),
});
export type GeminiErrorBody = z.infer<typeof geminiErrorBodySchema>;
