import { randomBytes } from 'node:crypto';
/**
 * A loopback stand-in for the Generative Language API (`models/{model}:generateContent` and the
 * model list `GET /v1/models`, on the stable `v1` and the `v1beta` paths) that checks requests the way the real one does: unknown fields, a
 * wrong image type, an `imageSize` sent to a model that has none, a model that does not exist or
 * was shut down (404 `NOT_FOUND`), a bad key or an oversized body are refused with the real error
 * shapes; every aspect ratio and size the API documents is accepted. Answers are scripted per call;
 * the default is a small PNG of the requested aspect (of the first reference when none is sent).
 */
import sharp from 'sharp';
import { z } from 'zod';
import {
  type FakeAnswer,
  type FakeHttpServer,
  type RecordedRequest,
  smallSizeFor,
  solidPng,
  startFakeHttpServer,
} from './fake-http.js';
import { unsignedTurn } from './gemini-signatures.js';
import { type UpstreamLimit, upstreamLatency } from './upstream-limit.js';

export type GeminiScript =
  | { kind: 'image'; thoughtFirst?: boolean; text?: string }
  | { kind: 'blocked'; blockReason: string }
  | { kind: 'finish'; finishReason: string; text?: string }
  | { kind: 'error'; status: number; json: unknown; headers?: Record<string, string> }
  | { kind: 'hang' }
  | { kind: 'malformed' };

export interface GeminiCall {
  model: string;
  body: z.infer<typeof requestSchema>;
  raw: RecordedRequest;
}

/** `ImageConfig.aspectRatio` values of @google/genai 3.3 (the 1:4 … 8:1 ones on Gemini 3.1 Flash Image). */
const ASPECTS = [
  '1:1',
  '2:3',
  '3:2',
  '3:4',
  '4:3',
  '4:5',
  '5:4',
  '9:16',
  '16:9',
  '21:9',
  '1:4',
  '4:1',
  '1:8',
  '8:1',
] as const;

/** The image models the API serves today (the preview ids and gemini-2.5-flash-image are shut down). */
export const GEMINI_IMAGE_MODELS = ['gemini-3-pro-image', 'gemini-3.1-flash-image'];

/**
 * Gemini's answer past a quota: 429 `RESOURCE_EXHAUSTED` with a google.rpc.RetryInfo delay, and
 * for a per-minute quota (`onTime`) the google.rpc.QuotaFailure naming it.
 */
function resourceExhausted(retryAfterMs: number, onTime: boolean): FakeAnswer {
  const quotaFailure = {
    '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
    violations: [
      {
        quotaMetric: 'generativelanguage.googleapis.com/generate_content_paid_tier_requests',
        quotaId: 'GenerateRequestsPerMinutePerProjectPerModel',
        quotaDimensions: { location: 'global', model: 'gemini-3.1-flash-image' },
        quotaValue: '16',
      },
    ],
  };
  return {
    status: 429,
    json: {
      error: {
        code: 429,
        message: 'Resource has been exhausted (e.g. check quota).',
        status: 'RESOURCE_EXHAUSTED',
        details: [
          ...(onTime ? [quotaFailure] : []),
          {
            '@type': 'type.googleapis.com/google.rpc.RetryInfo',
            retryDelay: `${(retryAfterMs / 1000).toFixed(3)}s`,
          },
        ],
      },
    },
  };
}

/** A part's `thoughtSignature` (a model turn's, sent back): base64 bytes. */
const signatureSchema = z
  .string()
  .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'thoughtSignature must be base64')
  .optional();

const partSchema = z.union([
  z.object({ text: z.string().min(1), thoughtSignature: signatureSchema }).strict(),
  z
    .object({
      inlineData: z
        .object({
          mimeType: z.enum(['image/png', 'image/jpeg', 'image/webp', 'image/heic', 'image/heif']),
          data: z.string().regex(/^[A-Za-z0-9+/]+={0,2}$/, 'inlineData.data must be base64'),
        })
        .strict(),
      thoughtSignature: signatureSchema,
    })
    .strict(),
]);

const requestSchema = z
  .object({
    contents: z
      .array(
        z.object({ role: z.enum(['user', 'model']).optional(), parts: z.array(partSchema).min(1) }).strict(),
      )
      .min(1),
    generationConfig: z
      .object({
        responseModalities: z
          .array(z.enum(['TEXT', 'IMAGE']))
          .min(1)
          .refine((m) => m.includes('IMAGE'), 'responseModalities must include IMAGE'),
        imageConfig: z
          .object({
            aspectRatio: z.enum(ASPECTS).optional(),
            imageSize: z.enum(['512', '1K', '2K', '4K']).optional(),
          })
          .strict()
          .optional(),
        /** GenerationConfig.seed (int32): "Seed used in decoding"; random when absent. */
        seed: z.int32().optional(),
      })
      .strict(),
  })
  .strict();

const invalidArgument = (message: string): FakeAnswer => ({
  status: 400,
  json: { error: { code: 400, message, status: 'INVALID_ARGUMENT' } },
});

/** Without `aspectRatio`, Gemini follows the references: the first inline image's shape, else 1:1. */
async function firstReferenceAspect(body: z.infer<typeof requestSchema>): Promise<string> {
  for (const part of body.contents.flatMap((content) => content.parts)) {
    if ('inlineData' in part) {
      const meta = await sharp(Buffer.from(part.inlineData.data, 'base64')).metadata();
      return `${meta.width ?? 1}:${meta.height ?? 1}`;
    }
  }
  return '1:1';
}

/** Prompt tokens of one reference image, and image tokens of one answer (1K/2K; 4K costs 2000). */
export const FAKE_IMAGE_INPUT_TOKENS = 258;
export const FAKE_IMAGE_OUTPUT_TOKENS = 1120;
/** Thinking tokens of a Gemini 3 Pro image model (a thinking model; the others report none). */
export const FAKE_THOUGHT_TOKENS = 150;

/**
 * `usageMetadata` as the API answers it (GenerateContentResponseUsageMetadata, proto3 JSON: zero
 * counts left out): text tokens at one per 4 characters, FAKE_IMAGE_INPUT_TOKENS per reference,
 * per-modality details of prompt and candidates, thoughts on the pro model, the total of them all.
 */
function usageMetadataOf(model: string, body: z.infer<typeof requestSchema>, said?: string) {
  const parts = body.contents.flatMap((content) => content.parts);
  const text = parts.reduce((n, part) => n + ('text' in part ? Math.ceil(part.text.length / 4) : 0), 0);
  const images = parts.filter((part) => 'inlineData' in part).length * FAKE_IMAGE_INPUT_TOKENS;
  const output = body.generationConfig.imageConfig?.imageSize === '4K' ? 2000 : FAKE_IMAGE_OUTPUT_TOKENS;
  const saidTokens = said ? Math.ceil(said.length / 4) : 0;
  const thoughts = /pro/.test(model) ? FAKE_THOUGHT_TOKENS : 0;
  const modalities = (counts: Array<[string, number]>) =>
    counts.filter(([, n]) => n > 0).map(([modality, tokenCount]) => ({ modality, tokenCount }));
  return {
    promptTokenCount: text + images,
    candidatesTokenCount: output + saidTokens,
    totalTokenCount: text + images + output + saidTokens + thoughts,
    promptTokensDetails: modalities([
      ['TEXT', text],
      ['IMAGE', images],
    ]),
    candidatesTokensDetails: modalities([
      ['IMAGE', output],
      ['TEXT', saidTokens],
    ]),
    ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
  };
}

export interface FakeGemini extends FakeHttpServer {
  calls: GeminiCall[];
  /** The thought signatures put on the answers' image parts, in order (Gemini 3 models). */
  signatures: string[];
  /** Answers for the next calls, in order; afterwards each call gets an image. */
  script(...answers: GeminiScript[]): void;
}

/** Starts a fake Gemini API that accepts `apiKey`. */
export async function startFakeGemini({
  apiKey,
  maxRequestBytes = 20_000_000,
  sizelessModels = /^gemini-2\./,
  models = GEMINI_IMAGE_MODELS,
  limit,
}: {
  apiKey: string;
  /** The upstream's own rate limit (429 RESOURCE_EXHAUSTED past it), and each accepted call's time. */
  limit?: UpstreamLimit;
  maxRequestBytes?: number;
  sizelessModels?: RegExp;
  /** The model ids this fake serves (and lists at `GET /v1/models`). */
  models?: readonly string[];
}): Promise<FakeGemini> {
  const queue: GeminiScript[] = [];
  const calls: GeminiCall[] = [];
  /** The thought signatures this upstream put on its answers' image parts. */
  const signatures: string[] = [];
  const issued = new Set<string>();

  /** `GET /v1/models`, one model per page so that paging is exercised. */
  function modelList(query: URLSearchParams): FakeAnswer {
    const all = [...models, 'gemini-3.5-flash', 'text-embedding-004'];
    const at = Number(query.get('pageToken') ?? '0') || 0;
    const pageSize = Math.min(Number(query.get('pageSize') ?? '50') || 50, 2);
    const page = all.slice(at, at + pageSize).map((id) => ({
      name: `models/${id}`,
      displayName: id,
      supportedGenerationMethods: ['generateContent', 'countTokens'],
    }));
    const next = at + pageSize < all.length ? { nextPageToken: String(at + pageSize) } : {};
    return { status: 200, json: { models: page, ...next } };
  }

  async function handle(request: RecordedRequest): Promise<FakeAnswer> {
    const match = /^\/(v1|v1beta)\/models\/([^/:]+):generateContent$/.exec(request.path);
    const listing = request.method === 'GET' && /^\/(v1|v1beta)\/models$/.test(request.path);
    if (!listing && (request.method !== 'POST' || !match?.[2])) {
      return { status: 404, json: { error: { code: 404, message: 'Not found', status: 'NOT_FOUND' } } };
    }
    const key = request.headers['x-goog-api-key'];
    if (key === undefined) {
      return {
        status: 403,
        json: {
          error: {
            code: 403,
            message: "Method doesn't allow unregistered callers",
            status: 'PERMISSION_DENIED',
          },
        },
      };
    }
    if (key !== apiKey) {
      return {
        status: 400,
        json: {
          error: {
            code: 400,
            message: 'API key not valid. Please pass a valid API key.',
            status: 'INVALID_ARGUMENT',
            details: [
              {
                '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
                reason: 'API_KEY_INVALID',
                domain: 'googleapis.com',
              },
            ],
          },
        },
      };
    }
    if (listing) return modelList(request.query);
    const model = decodeURIComponent(match?.[2] ?? '');
    if (!models.includes(model)) {
      return {
        status: 404,
        json: {
          error: {
            code: 404,
            message: `models/${model} is not found for API version ${match?.[1]}, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
            status: 'NOT_FOUND',
          },
        },
      };
    }
    if (request.query.has('key'))
      return invalidArgument('the key belongs in the x-goog-api-key header, not the URL');
    if (!String(request.headers['content-type']).startsWith('application/json')) {
      return invalidArgument('Content-Type must be application/json');
    }
    if (request.body.length > maxRequestBytes) {
      // What the Gemini API answers (HTTP 400 with the matching code, like every INVALID_ARGUMENT).
      return invalidArgument(`Request payload size exceeds the limit: ${maxRequestBytes} bytes.`);
    }
    let json: unknown;
    try {
      json = JSON.parse(request.body.toString('utf8'));
    } catch {
      return invalidArgument('Invalid JSON payload received.');
    }
    const parsed = requestSchema.safeParse(json);
    if (!parsed.success) {
      return invalidArgument(
        `Invalid JSON payload received. ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
    }
    const body = parsed.data;
    if (sizelessModels.test(model) && body.generationConfig.imageConfig?.imageSize !== undefined) {
      return invalidArgument(`imageSize is not supported by ${model}`);
    }
    const unsigned = model.startsWith('gemini-3') ? unsignedTurn(body, issued) : undefined;
    if (unsigned) return unsigned;
    for (const content of body.contents) {
      for (const part of content.parts) {
        if ('inlineData' in part) {
          try {
            await sharp(Buffer.from(part.inlineData.data, 'base64')).metadata();
          } catch {
            return invalidArgument('Unable to process input image.');
          }
        }
      }
    }
    const admission = limit?.admit();
    if (admission && !admission.ok) return resourceExhausted(admission.retryAfterMs, admission.onTime);
    await upstreamLatency(limit);
    if (admission?.ok) admission.done();
    calls.push({ model, body, raw: request });
    const next = queue.shift() ?? { kind: 'image' };
    switch (next.kind) {
      case 'hang':
        return { hang: true };
      case 'malformed':
        return {
          status: 200,
          raw: '{"candidates": [{"content": {"parts": [{"inlineDa',
          contentType: 'application/json',
        };
      case 'error':
        return { status: next.status, json: next.json, headers: next.headers };
      case 'blocked':
        return {
          status: 200,
          json: { promptFeedback: { blockReason: next.blockReason }, modelVersion: model },
        };
      case 'finish':
        return {
          status: 200,
          json: {
            candidates: [
              {
                content: { role: 'model', parts: next.text ? [{ text: next.text }] : [] },
                finishReason: next.finishReason,
                index: 0,
              },
            ],
            modelVersion: model,
          },
        };
      case 'image': {
        const { width, height } = smallSizeFor(
          body.generationConfig.imageConfig?.aspectRatio ?? (await firstReferenceAspect(body)),
        );
        const data = (await solidPng(width, height)).toString('base64');
        const thought = (await solidPng(8, 8, '#999999')).toString('base64');
        const parts: unknown[] = [];
        if (next.thoughtFirst)
          parts.push({ inlineData: { mimeType: 'image/png', data: thought }, thought: true });
        if (next.text) parts.push({ text: next.text });
        // Gemini 3 image models sign their answer's parts (thought signatures, to be sent back in a
        // multi-turn edit); the image part carries one (Gemini API docs, "Thought signatures", 2025-11).
        const signature = model.startsWith('gemini-3')
          ? { thoughtSignature: randomBytes(48).toString('base64') }
          : {};
        if (signature.thoughtSignature) {
          issued.add(signature.thoughtSignature);
          signatures.push(signature.thoughtSignature);
        }
        parts.push({ inlineData: { mimeType: 'image/png', data }, ...signature });
        return {
          status: 200,
          json: {
            candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
            usageMetadata: usageMetadataOf(model, body, next.text),
            modelVersion: model,
            responseId: `resp-${calls.length}`,
          },
        };
      }
    }
  }

  const server = await startFakeHttpServer(handle);
  return { ...server, calls, signatures, script: (...answers) => queue.push(...answers) };
}
