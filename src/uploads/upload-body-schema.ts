import { z } from 'zod';
import { fieldError } from '../http/validation.js';

/** The JSON body of POST /api/v1/upload (spec §4.4); validates requests and feeds the OpenAPI document. */
export const uploadBodySchema = z
  .looseObject({
    source_url: z
      .string({ error: fieldError('must be a string') })
      .trim()
      .min(1, { error: 'must not be empty' })
      .describe('Public http(s) URL of a png, jpeg, webp, gif or bmp image of at most 25 MB'),
  })
  .describe('Upload by URL');
