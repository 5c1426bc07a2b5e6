import type { FastifyInstance } from 'fastify';
import { ApiError } from '../http/errors.js';
import type { BlobStore } from './blob-store.js';

/** Serves blobs at /files/<key>: public, immutable, with ETag and a long cache lifetime. */
export async function blobRoutes(app: FastifyInstance, { blobs }: { blobs: BlobStore }) {
  app.get<{ Params: { '*': string } }>('/files/*', async (request, reply) => {
    const key = request.params['*'];
    const found = await blobs.open(key);
    if (!found) throw new ApiError('not_found', 'File not found');
    const { stream, stat } = found;
    reply
      .header('content-type', stat.contentType)
      .header('etag', stat.etag)
      // Keys never change meaning: uploads are content-addressed and results are keyed by task id.
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'");
    if (request.headers['if-none-match'] === stat.etag) {
      stream.destroy();
      return reply.code(304).send();
    }
    reply.header('content-length', stat.bytes);
    return reply.send(stream);
  });
}
