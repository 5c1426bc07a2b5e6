import { z } from 'zod';
import { fieldError } from './field-error.js';
import { checkHttpUrl, HTTP_URL_PATTERN } from './formats.js';

/** The JSON body of POST /api/v1/upload (spec §4.4); validates requests and feeds the OpenAPI document. */
export const uploadBodySchema = z
  .looseObject({
    source_url: z
      .string({ error: fieldError('must be a string') })
      .trim()
      .min(1, { error: 'must not be empty' })
      .superRefine(checkHttpUrl)
      .meta({ format: 'uri', pattern: HTTP_URL_PATTERN })
      .describe('Public http(s) URL of a png, jpeg, webp, gif or bmp image of at most 25 MB'),
  })
  .meta({
    id: 'UploadRequest',
    description: 'Upload by URL',
    examples: [{ source_url: 'https://203.0.113.7/reference.png' }],
  });
