import { Readable } from 'node:stream';
import type {
  ImageGenerationTool,
  OpenAiResponseCreate,
  ResponseInputItem,
} from '../../base/contract/openai-responses.js';
import { aboutReferenceField, DomainError, InvalidInput, TooLarge } from '../../base/domain/errors.js';
import type { Account } from '../../capabilities/accounts/index.js';
import type { Catalog } from '../../capabilities/catalog/index.js';
import {
  MAX_UPLOAD_BYTES,
  type UploadsService,
  writeStreamToTempFile,
} from '../../capabilities/uploads/index.js';

/**
 * What a Responses API request asks of the image tool, read from its `input`: the prompt (the last
 * user message's text), the images that came with it, the earlier image it names, and the tool's
 * options. The model: the tool's `model` (OpenAI's image model field), else the request's `model`
 * when the catalog knows it (an id or an alias), else the catalog default — chat model names (gpt-5,
 * gpt-4.1, …) name no image model.
 */
export interface ResponseAsk {
  prompt: string;
  /** input_image parts of the last user message: data URLs or http(s) URLs. */
  images: string[];
  /** An `image_generation_call` (or `item_reference`) id in `input`: the image refined. */
  inputImageCall?: string;
  tool: ImageGenerationTool;
  model: string | undefined;
}

const IMAGE_CALL_ID = /^ig_[\w-]{1,64}$/;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

const refuse = (message: string, field = 'input') => new InvalidInput(message, field);

/** The one image_generation tool of the request (other tools are ignored); none → 400 param tools. */
function imageToolOf(tools: OpenAiResponseCreate['tools']): ImageGenerationTool {
  const tool = tools?.find((t) => t.type === 'image_generation');
  if (!tool)
    throw refuse(
      'tools must include { "type": "image_generation" }: Atelier answers Responses requests with images',
      'tools',
    );
  return tool;
}

/** The text of a message's content (its input_text parts, joined). */
function textOf(content: ResponseInputItem['content']): string {
  if (typeof content === 'string') return content;
  return (content ?? [])
    .filter((part) => part.type === 'input_text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

/** The image URLs of a message's content (its input_image parts). */
function imagesOf(content: ResponseInputItem['content']): string[] {
  if (typeof content === 'string' || !content) return [];
  return content.flatMap((part) => {
    if (part.type !== 'input_image') return [];
    if (part.file_id)
      throw refuse('input_image with file_id is not supported: send image_url (a data: or https URL)');
    if (!part.image_url) throw refuse('input_image needs image_url');
    return [part.image_url];
  });
}

/** The last earlier image named in the input (image_generation_call or item_reference with an ig_ id). */
function imageCallOf(items: ResponseInputItem[]): string | undefined {
  const named = items.filter(
    (item) => (item.type === 'image_generation_call' || item.type === 'item_reference') && item.id,
  );
  const last = named.at(-1)?.id;
  if (last === undefined) return undefined;
  if (!IMAGE_CALL_ID.test(last)) {
    if (named.some((item) => item.type === 'image_generation_call'))
      throw refuse(
        `input names image_generation_call ${last.slice(0, 80)}, which is not an id Atelier issued`,
      );
    return undefined;
  }
  return last;
}

/** Reads a request (see ResponseAsk). */
export function readResponseAsk(catalog: Catalog, body: OpenAiResponseCreate): ResponseAsk {
  const tool = imageToolOf(body.tools);
  const requested = body.model?.trim();
  const model = tool.model?.trim() || (requested && catalog.get(requested) ? requested : undefined);
  if (typeof body.input === 'string') return { prompt: body.input, images: [], tool, model };
  const users = body.input.filter((item) => (item.type ?? 'message') === 'message' && item.role === 'user');
  const last = users.at(-1);
  const inputImageCall = imageCallOf(body.input);
  const prompt = textOf(last?.content);
  if (prompt.trim() === '')
    throw refuse('input: the last user message has no input_text; say what the image should be');
  return {
    prompt,
    images: imagesOf(last?.content),
    ...(inputImageCall === undefined ? {} : { inputImageCall }),
    tool,
    model,
  };
}

/** The task id of an image item's id: `ig_<x>` is the image of task `tsk_<x>`. */
export const taskIdOfImageCall = (id: string) => `tsk_${id.slice('ig_'.length)}`;
/** The id of a task's image item. */
export const imageCallIdOf = (taskId: string) => `ig_${taskId.replace(/^tsk_/, '')}`;

/** A data: URL's image, checked and stored like an upload; its Atelier URL. */
async function storeDataUrl(uploads: UploadsService, account: Account, url: string): Promise<string> {
  const match = /^data:image\/[\w.+-]+;base64,(.*)$/s.exec(url);
  const data = match?.[1]?.replace(/\s+/g, '') ?? '';
  if (data === '' || !BASE64.test(data)) throw refuse('input_image data URLs must be data:image/…;base64,…');
  if ((data.length * 3) / 4 > MAX_UPLOAD_BYTES + 3) throw new TooLarge('Image is larger than 25 MB');
  const file = await writeStreamToTempFile(Readable.from([Buffer.from(data, 'base64')]));
  try {
    return (await uploads.ingestFile(account.id, file.path)).url;
  } finally {
    await file.cleanup();
  }
}

/** The input images as imageUrls: data URLs stored first, http(s) URLs passed on (fetched safely). */
export async function imageUrlsOf(uploads: UploadsService, account: Account, images: string[]) {
  const urls: string[] = [];
  for (const [index, image] of images.entries()) {
    if (/^https?:\/\//i.test(image)) {
      urls.push(image);
      continue;
    }
    if (!image.startsWith('data:')) throw refuse('input_image image_url must be a data: or http(s) URL');
    try {
      urls.push(await storeDataUrl(uploads, account, image));
    } catch (error) {
      throw error instanceof DomainError
        ? aboutReferenceField(error, `input_image[${index}]`, 'input')
        : error;
    }
  }
  return urls;
}
