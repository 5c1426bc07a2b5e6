import { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { parseInput } from '../../base/contract/parse-input.js';
import {
  multipartUploadSchema,
  rawImageUploadSchema,
  uploadBodySchema,
  uploadResultSchema,
} from '../../base/contract/uploads.js';
import { InvalidInput } from '../../base/domain/errors.js';
import type { UploadsService } from '../../capabilities/uploads/index.js';
import {
  MAX_UPLOAD_BYTES,
  refuseOverLimitForm,
  UPLOAD_FORM_LIMITS,
  writeStreamToTempFile,
} from '../../capabilities/uploads/index.js';
import { accountOf } from '../http/authentication.js';
import { ApiError } from '../http/errors.js';
import { idempotencyHeadersSchema } from '../http/idempotency-hooks.js';
import { errorResponses, jsonResponse, WRITE_AUTH_ERRORS } from '../http/route-responses.js';

const uploadSchema = {
  tags: ['Uploads'],
  operationId: 'upload',
  summary: 'Upload a reference image',
  description: `By URL (JSON) — fetched safely and re-hosted — or directly, as multipart field "file" or a raw image body (Content-Type image/* or application/octet-stream). At most ${MAX_UPLOAD_BYTES / 1024 / 1024} MB; png, jpeg, webp, gif or bmp by magic bytes, whatever the Content-Type says (else 415); at most 100 megapixels. Any other Content-Type (curl's default application/x-www-form-urlencoded included) is 400 invalid_request.`,
  headers: idempotencyHeadersSchema,
  // Per media type: Fastify validates the JSON form with its schema; the direct forms are streams
  // the handler reads with its own limits, so they are only documented (see src/edges/openapi).
  body: { content: { 'application/json': { schema: uploadBodySchema } } },
  documentedOnlyBodies: {
    'multipart/form-data': { schema: multipartUploadSchema },
    'image/*': { schema: rawImageUploadSchema },
  },
  response: {
    200: jsonResponse('The stored image', uploadResultSchema),
    ...errorResponses([
      'invalid_request',
      ...WRITE_AUTH_ERRORS,
      'request_timeout',
      'payload_too_large',
      'unsupported_media_type',
      'invalid_image',
      'fetch_failed',
      'too_many_requests',
    ]),
  },
};

/**
 * True when the raw body's chunks are the HTTP/1 parser's own copies, made for this request alone
 * (a body read from a real connection, no hook in between): then each chunk can be released once
 * it is on disk. A request injected in process (`app.inject`) streams the caller's own buffers,
 * which must be left alone.
 */
function bodyChunksAreCopies(request: FastifyRequest): boolean {
  return request.raw.socket instanceof Socket && request.raw.httpVersionMajor === 1;
}

/**
 * POST /upload: JSON `{ source_url }` (spec §4.4), or a direct upload — multipart/form-data with a
 * `file` field, or a raw `image/*` body — with the same limits and checks.
 */
export async function uploadRoutes(
  parent: FastifyInstance,
  { uploads, bodyDeadlineMs }: { uploads: UploadsService; bodyDeadlineMs: number },
) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  await app.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, ...UPLOAD_FORM_LIMITS } });
  // Raw image bodies stay a stream: the handler writes them to disk with a byte cap.
  app.addContentTypeParser(/^(image\/[a-z0-9.+-]+|application\/octet-stream)$/i, (_request, payload, done) =>
    done(null, payload),
  );

  /** The upload's file part; a body busboy cannot parse (no boundary, cut short) is the caller's error. */
  async function filePart(request: FastifyRequest) {
    try {
      return await request.file();
    } catch (thrown) {
      const error = refuseOverLimitForm(thrown, UPLOAD_FORM_LIMITS);
      const status = (error as { statusCode?: unknown }).statusCode;
      const callers = error instanceof ApiError || error instanceof InvalidInput;
      if (callers || (typeof status === 'number' && status >= 400 && status < 500)) throw error;
      throw new ApiError('invalid_request', 'Malformed multipart/form-data body');
    }
  }

  /** `ownChunks`: nothing else holds the stream's chunks (they can be released once written). */
  async function ingestStream(request: FastifyRequest, stream: Readable, ownChunks = false, name?: string) {
    const file = await writeStreamToTempFile(stream, { releaseChunks: ownChunks });
    try {
      if (file.bytes === 0) throw new ApiError('invalid_request', 'The uploaded file is empty');
      const { blobKey: _key, ...result } = await uploads.ingestFile(accountOf(request).id, file.path, name);
      return result;
    } finally {
      await file.cleanup();
    }
  }

  const routeOptions = {
    bodyLimit: MAX_UPLOAD_BYTES + 1024 * 1024,
    config: { bodyDeadlineMs },
    schema: uploadSchema,
  };
  app.post('/upload', routeOptions, async (request) => {
    const account = accountOf(request);
    // An account whose uploads for today are spent is refused before its body is read.
    await uploads.assertRoom(account.id);
    if (request.isMultipart()) {
      const part = await filePart(request);
      if (part?.fieldname !== 'file')
        throw new ApiError('invalid_request', 'multipart upload needs a "file" field');
      const result = await ingestStream(request, part.file, false, part.filename);
      if (part.file.truncated) throw new ApiError('payload_too_large', 'Image is larger than 25 MB');
      return result;
    }
    const body = request.body;
    if (body && typeof body === 'object' && 'pipe' in body)
      return ingestStream(request, body as Readable, bodyChunksAreCopies(request));
    const { source_url: sourceUrl } = parseInput(uploadBodySchema, body);
    const { blobKey: _key, ...result } = await uploads.ingestUrl(account.id, sourceUrl.trim());
    return result;
  });
}
