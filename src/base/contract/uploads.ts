import { z } from 'zod';

export { uploadBodySchema } from './upload-body.js';

/** The answer of POST /upload (spec §2.5). */
export const uploadResultSchema = z
  .object({
    url: z.string().describe('Stable re-hosted URL; usable in imageUrls'),
    filename: z.string().describe("Atelier's file name (content hash + extension)"),
    content_type: z.string(),
    bytes: z.number().int(),
  })
  .meta({
    id: 'UploadResult',
    description: 'Upload result',
    examples: [
      {
        url: 'http://localhost:8080/files/uploads/9f86d081884c7d65.png',
        filename: '9f86d081884c7d65.png',
        content_type: 'image/png',
        bytes: 48213,
      },
    ],
  });

export type UploadResult = z.output<typeof uploadResultSchema>;

/** A direct upload as multipart/form-data: one part named "file". */
export const multipartUploadSchema = z
  .object({ file: z.string().meta({ contentMediaType: 'application/octet-stream' }) })
  .describe('Multipart upload: the image in the part named "file"');

/** A direct upload as a raw image body. */
export const rawImageUploadSchema = z
  .string()
  .meta({ contentMediaType: 'image/*' })
  .describe('The image bytes');
