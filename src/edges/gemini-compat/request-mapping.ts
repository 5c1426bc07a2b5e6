import type { GeminiGenerateBody } from '../../base/contract/gemini.js';
import { InvalidInput } from '../../base/domain/errors.js';
import type { GenerationMode } from '../../base/domain/generation-modes.js';
import type { ImageQuality } from '../../base/domain/image-qualities.js';
import type { CatalogEntry } from '../../capabilities/catalog/index.js';

/** A reference image of the request, in the order its parts gave them. */
export type Reference =
  | { kind: 'inline'; label: string; mimeType: string; data: string }
  | { kind: 'url'; label: string; url: string };

/**
 * The image of the conversation's last `model` turn (a multi-turn edit): the image the new turn
 * edits, with the signature the answer carried (Atelier's own names the task it came from).
 */
export interface PreviousImage {
  label: string;
  mimeType: string;
  data: string;
  signature?: string;
}

/** What a generateContent request asks of the generate use case (before the references are stored). */
export interface GeminiPlan {
  prompt: string;
  references: Reference[];
  /** A conversation's earlier image the turn edits (its parent when it is one of the account's works). */
  previous?: PreviousImage;
  mode: GenerationMode;
  /** Absent: 1:1 for text, the reference's shape for an edit or fusion (as Gemini's own edits). */
  aspect?: string;
  imageSize?: string;
  /** Atelier's extra `imageConfig.quality`, one of the model's; absent: the model's default. */
  quality?: ImageQuality;
  count: number;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The proto's snake_case names onto the camelCase ones, for one object's own keys. */
function camelKeys(value: unknown, nested: Record<string, (inner: unknown) => unknown> = {}): unknown {
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [key, inner] of Object.entries(value)) {
    const camel = key.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
    // camelCase wins when a body sends both spellings.
    if (camel !== key && camel in value) continue;
    out[camel] = nested[camel] ? nested[camel](inner) : inner;
  }
  return out;
}

const eachOf = (map: (item: unknown) => unknown) => (value: unknown) =>
  Array.isArray(value) ? value.map(map) : value;

/**
 * Google's JSON takes both spellings of a field (`inline_data` or `inlineData`: Open WebUI sends
 * the first). The known places are rewritten, no deeper: a body is never walked recursively.
 */
export function camelizeGeminiBody(body: unknown): unknown {
  const part = (value: unknown) => camelKeys(value, { inlineData: camelKeys, fileData: camelKeys });
  return camelKeys(body, {
    contents: eachOf((content) => camelKeys(content, { parts: eachOf(part) })),
    generationConfig: (config) => camelKeys(config, { imageConfig: camelKeys }),
  });
}

type Content = GeminiGenerateBody['contents'][number];

const hasImage = (content: Content) =>
  content.role === 'model' && content.parts.some((part) => part.inlineData && part.thought !== true);

/** The last (non-thought) image part of a model turn, with its signature. */
function previousImageOf(content: Content, c: number): PreviousImage | undefined {
  const p = content.parts.findLastIndex((part) => part.inlineData && part.thought !== true);
  const part = content.parts[p];
  if (!part?.inlineData) return undefined;
  const { mimeType, data } = part.inlineData;
  const signature = typeof part.thoughtSignature === 'string' ? part.thoughtSignature : undefined;
  return {
    label: `contents[${c}].parts[${p}].inlineData`,
    mimeType,
    data,
    ...(signature ? { signature } : {}),
  };
}

/**
 * The request's contents. A conversation (a `model` turn with an image, then the user's turns): the
 * user's turns after that image are the new turn (their texts the prompt, their images references),
 * and that image is the one the turn edits (`previous`). Otherwise read as one request: the text
 * parts of the user's turns joined are the prompt, the image parts of every turn the references.
 */
export function readContents(
  contents: GeminiGenerateBody['contents'],
): Pick<GeminiPlan, 'prompt' | 'references' | 'previous'> {
  const at = contents.findLastIndex(hasImage);
  const previous = at < 0 ? undefined : previousImageOf(contents[at] as Content, at);
  const texts: string[] = [];
  const references: Reference[] = [];
  for (const [c, content] of contents.entries()) {
    if (c <= at) continue;
    const fromUser = content.role === undefined || content.role === 'user';
    for (const [p, part] of content.parts.entries()) {
      const label = `contents[${c}].parts[${p}]`;
      if (fromUser && typeof part.text === 'string' && part.thought !== true) texts.push(part.text);
      if (part.inlineData) references.push(inlineReference(`${label}.inlineData`, part.inlineData));
      if (part.fileData) {
        const url = part.fileData.fileUri.trim();
        if (!/^https?:\/\//i.test(url)) {
          throw new InvalidInput(
            `${label}.fileData: fileUri must be an http(s) URL of an image (Google's Files API is not served here); got "${url.slice(0, 100)}"`,
            'contents',
          );
        }
        references.push({ kind: 'url', label: `${label}.fileData`, url });
      }
    }
  }
  const prompt = texts.join('\n').trim();
  if (prompt === '') {
    const where = at < 0 ? '' : ` after the model's last image (contents[${at}])`;
    throw new InvalidInput(`contents must carry a text part from the user${where} (the prompt)`, 'prompt');
  }
  if (previous) inlineReference(previous.label, previous);
  return { prompt, references, ...(previous ? { previous } : {}) };
}

/** An inline image part as a reference; refused when its type is not an image. */
function inlineReference(label: string, { mimeType, data }: { mimeType: string; data: string }): Reference {
  if (!mimeType.toLowerCase().startsWith('image/')) {
    throw new InvalidInput(`${label}: mimeType ${mimeType} is not an image`, 'contents');
  }
  return { kind: 'inline', label, mimeType, data };
}

/**
 * Atelier's extra `imageConfig.quality` (Google's ImageConfig has none; `@google/genai` sends it
 * through `httpOptions.extraBody`): one of the model's qualities, any case. Checked here, before
 * any image is stored; a model without qualities refuses it, as `POST /api/v1/generate` does.
 */
export function readQuality(model: CatalogEntry, raw: string | undefined): ImageQuality | undefined {
  const wanted = raw?.trim().toLowerCase();
  if (!wanted) return undefined;
  const offered = model.qualities?.find((quality) => quality === wanted);
  if (offered) return offered;
  throw new InvalidInput(
    model.qualities
      ? `quality ${raw} is not offered by model ${model.id}; accepted: ${model.qualities.join(', ')}`
      : `quality: model ${model.id} takes no quality (it renders at its own)`,
    'quality',
  );
}

/**
 * The whole request onto the model: references → mode (checked against the model's modes before
 * any image is stored), responseModalities must ask for images, imageConfig → aspect, size and
 * quality, candidateCount → count. Aspects and sizes the model lacks are left to the generate use
 * case to refuse.
 */
export function planGeminiRequest(model: CatalogEntry, body: GeminiGenerateBody): GeminiPlan {
  const config = body.generationConfig;
  const modalities = config?.responseModalities;
  if (modalities !== undefined && !modalities.some((modality) => modality.toUpperCase() === 'IMAGE')) {
    throw new InvalidInput(
      `generationConfig.responseModalities must include IMAGE: Atelier answers images (got ${modalities.join(', ') || 'none'})`,
      'generationConfig.responseModalities',
    );
  }
  const { prompt, references, previous } = readContents(body.contents);
  const images = references.length + (previous ? 1 : 0);
  const mode = images === 0 ? 'text' : images === 1 ? 'edit' : 'fusion';
  if (!model.modes.includes(mode)) {
    const what = mode === 'fusion' ? 'several images (fusion)' : mode;
    const hint =
      mode === 'fusion' ? 'send one image, or pick a model that lists fusion' : 'pick another model';
    throw new InvalidInput(`model ${model.id} does not support ${what}; ${hint}`, 'mode');
  }
  const aspect = config?.imageConfig?.aspectRatio?.trim();
  const imageSize = config?.imageConfig?.imageSize?.trim().toUpperCase();
  const quality = readQuality(model, config?.imageConfig?.quality);
  return {
    prompt,
    references,
    ...(previous ? { previous } : {}),
    mode,
    ...(aspect ? { aspect } : {}),
    // Gemini's default is 1K (the generate use case's is 2K).
    ...(imageSize ? { imageSize } : model.sizes.includes('1K') ? { imageSize: '1K' } : {}),
    ...(quality ? { quality } : {}),
    count: config?.candidateCount ?? 1,
  };
}
