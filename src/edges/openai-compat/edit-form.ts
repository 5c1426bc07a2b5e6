import type { FastifyRequest } from 'fastify';
import { openAiEditFieldsSchema } from '../../base/contract/openai.js';
import { parseInput } from '../../base/contract/parse-input.js';
import { DomainError, InvalidInput, TooLarge } from '../../base/domain/errors.js';
import {
  type MultipartLimits,
  refuseOverLimitForm,
  writeStreamToTempFile,
} from '../../capabilities/uploads/index.js';

/** Most image parts an edit may carry (OpenAI's own limit is 16). */
export const MAX_EDIT_IMAGES = 16;

/** The edit form's part limits: the images, a mask, and OpenAI's text fields with room to spare. */
export const EDIT_FORM_LIMITS: MultipartLimits = { files: MAX_EDIT_IMAGES + 1, fields: 30, parts: 60 };

type TempFile = Awaited<ReturnType<typeof writeStreamToTempFile>>;

/** An edit's form, read: its text fields (validated) and its images as temp files. */
export interface EditForm {
  fields: ReturnType<typeof openAiEditFieldsSchema.parse>;
  images: TempFile[];
  /** The `mask` part (a PNG whose fully transparent pixels say where to edit), if one came. */
  mask?: TempFile;
  cleanup(): Promise<void>;
}

/**
 * Reads POST /v1/images/edits' multipart body: `image` or `image[]` parts (in order) and a `mask`
 * part to temp files with the upload limits, the text fields into a validated object. Any other
 * file part is read and dropped. On any refusal the temp files are gone.
 */
export async function readEditForm(request: FastifyRequest): Promise<EditForm> {
  if (!request.isMultipart()) {
    throw new InvalidInput('POST /v1/images/edits takes multipart/form-data with an image part', 'image');
  }
  const images: TempFile[] = [];
  let mask: TempFile | undefined;
  const cleanup = async () => {
    await Promise.all([...images, ...(mask ? [mask] : [])].map((file) => file.cleanup()));
  };
  const text: Record<string, string> = {};
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        text[part.fieldname] = String(part.value);
        continue;
      }
      if (part.fieldname === 'mask' && !mask) {
        mask = await writeStreamToTempFile(part.file);
        if (part.file.truncated) throw new TooLarge('mask is larger than 25 MB');
        if (mask.bytes === 0) throw new InvalidInput('mask is empty', 'mask');
        continue;
      }
      if (part.fieldname !== 'image' && part.fieldname !== 'image[]') {
        part.file.resume();
        continue;
      }
      if (images.length === MAX_EDIT_IMAGES) {
        part.file.resume();
        throw new InvalidInput(`image: at most ${MAX_EDIT_IMAGES} images per edit`, 'image');
      }
      const file = await writeStreamToTempFile(part.file);
      images.push(file);
      if (part.file.truncated) throw new TooLarge('Image is larger than 25 MB');
      if (file.bytes === 0) throw new InvalidInput(`image[${images.length - 1}] is empty`, 'image');
    }
    if (images.length === 0) {
      throw new InvalidInput('image is required: one image to edit, or several to blend (fusion)', 'image');
    }
    const fields = parseInput(openAiEditFieldsSchema, text, 'The form');
    return { fields, images, ...(mask ? { mask } : {}), cleanup };
  } catch (error) {
    await cleanup();
    throw asCallerError(error);
  }
}

/** A body busboy cannot parse (no boundary, cut short, garbage) is the caller's error, not a 500. */
function asCallerError(thrown: unknown): unknown {
  const error = refuseOverLimitForm(thrown, EDIT_FORM_LIMITS);
  if (error instanceof DomainError) return error;
  const status = (error as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return error;
  return new InvalidInput('Malformed multipart/form-data body', 'image');
}
