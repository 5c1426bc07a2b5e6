import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { BlobStat, BlobStore } from '../../infra/blobs/blob-store.js';
import { createPublicFiles, type PublicFiles } from '../../infra/blobs/public-files.js';
import { RENDITION_FORMATS, RENDITION_WIDTHS, type RenditionWidth } from '../../infra/blobs/renditions.js';
import { errorResponses, noContent } from '../http/route-responses.js';

/** How long a presigned URL handed out by a redirect stays valid. */
export const SIGNED_URL_SECONDS = 300;

const widthList = RENDITION_WIDTHS.join(', ');

const renditionQuery = z.object({
  w: z
    .string()
    .optional()
    .refine((raw) => raw === undefined || RENDITION_WIDTHS.some((width) => String(width) === raw), {
      error: `must be one of ${widthList}`,
    })
    .transform((raw) => (raw === undefined ? undefined : (Number(raw) as RenditionWidth)))
    .meta({ type: 'integer', enum: [...RENDITION_WIDTHS] })
    .describe(
      `A resized rendition this many pixels wide (never wider than the original), made once and kept: one of ${widthList}`,
    ),
  format: z
    .enum(RENDITION_FORMATS, { error: 'must be avif, webp or original' })
    .optional()
    .describe(
      'The rendition\'s format: avif, webp, or the original\'s own (the default). Only with `w`: `format` without `w` is refused (400 "format needs w")',
    ),
});

const filesSchema = {
  tags: ['Files'],
  summary: 'An uploaded image or a result',
  description: `Public and immutable (ETag, long cache lifetime): the URLs in imageUrl, images and upload results point here. A file removed for good (deleted, expired, erased: docs/operations.md, Data lifecycle) answers 410 \`gone\`. With \`w\` (${widthList}) and optionally \`format\` (avif, webp, original), a resized rendition instead, made on first request and kept in storage. With object storage and redirects on, a 302 to a short-lived presigned URL instead.`,
  // Public: the URLs are unguessable content hashes and task ids, and must work in an <img>.
  security: [],
  params: z.object({
    '*': z.string().describe('The key, e.g. uploads/<name>.png or results/<task id>.png'),
  }),
  querystring: renditionQuery,
  response: {
    200: {
      description: 'The image',
      content: { 'image/*': { schema: z.string().meta({ contentMediaType: 'image/*' }) } },
    },
    302: noContent('Redirect to a presigned URL of the object'),
    304: noContent('Not modified (If-None-Match)'),
    ...errorResponses(['invalid_request', 'not_found', 'gone', 'too_many_requests']),
  },
};

/**
 * Serves blobs at /files/<key>: public, immutable, with ETag and a long cache lifetime. With `redirect`
 * (object storage), answers 302 to a short-lived presigned URL of the object instead of streaming it.
 */
export async function blobRoutes(
  app: FastifyInstance,
  {
    blobs,
    redirect = false,
    renditionCaps,
    isGone,
    zeroRetention,
  }: {
    blobs: BlobStore;
    redirect?: boolean;
    /** Whether the data lifecycle removed a file for good (410 instead of 404). */
    isGone?: (key: string) => Promise<boolean>;
    /** First-time renditions at once on this node, and callers waiting (past them: 429). */
    renditionCaps?: { concurrency: number; queue: number };
    /** Zero-retention works' results: served uncached, never redirected, and purged once fetched. */
    zeroRetention?: ZeroRetentionFiles;
  },
) {
  const files = createPublicFiles({ blobs, renditionCaps, isGone });
  if (redirect && !files.presigns)
    throw new Error('redirecting /files needs a blob store that presigns URLs');

  const routes = app.withTypeProvider<ZodTypeProvider>();
  const serveFile = async (
    request: {
      params: { '*': string };
      query: z.output<typeof renditionQuery>;
      headers: Record<string, string | string[] | undefined>;
      method: string;
      /** The client's address (as ATELIER_TRUST_PROXY makes Fastify believe): its turn for renditions. */
      ip: string;
    },
    reply: FastifyReply,
  ) => {
    const { w, format } = request.query;
    const original = request.params['*'];
    const key = await files.keyToServe(original, w, format, request.ip);
    const ifNoneMatch = request.headers['if-none-match'] as string | undefined;
    // Not redirected (Atelier must see the fetch end) and not kept by any cache on the way.
    if (zeroRetention && (await zeroRetention.isZeroRetention(original)))
      return serveZeroRetention(reply, key, files, {
        bodiless: request.method === 'HEAD',
        delivered:
          w === undefined && request.method === 'GET' ? () => zeroRetention.delivered([original]) : undefined,
      });
    if (redirect) {
      if (ifNoneMatch) {
        const stat = await files.stat(key);
        if (etagMatches(ifNoneMatch, stat.etag)) return notModified(reply, stat);
      }
      const url = await files.signedUrl(key, SIGNED_URL_SECONDS);
      // Shorter than the URL's life, and private: a shared cache must not hand out a URL about to expire.
      return reply.header('cache-control', 'private, max-age=60').redirect(url, 302);
    }
    // Revalidations and HEAD cost a metadata lookup only, not the start of a transfer.
    const bodiless = request.method === 'HEAD';
    if (ifNoneMatch || bodiless) {
      const stat = await files.stat(key);
      if (ifNoneMatch && etagMatches(ifNoneMatch, stat.etag)) return notModified(reply, stat);
      if (bodiless) return withContentHeaders(reply, stat).send();
    }
    const found = await files.open(key);
    return withContentHeaders(reply, found.stat).send(found.stream);
  };
  routes.get(
    '/files/*',
    { schema: { ...filesSchema, operationId: 'getFile' }, exposeHeadRoute: false },
    serveFile,
  );
  // HEAD explicitly: the automatic HEAD route would run GET and drain the whole object.
  routes.head(
    '/files/*',
    {
      schema: { ...filesSchema, operationId: 'headFile', summary: 'The headers of a file, without its body' },
    },
    serveFile,
  );
}

/** What /files needs of zero-retention (the data lifecycle's). */
export interface ZeroRetentionFiles {
  isZeroRetention(key: string): Promise<boolean>;
  /** The images at these keys were fetched (runs on its own: never throws). */
  delivered(keys: string[]): void;
}

/**
 * A zero-retention work's file: streamed with `no-store` (HEAD: the headers only); a GET of the
 * original that reaches its end counts as the delivery (the work is then purged), an interrupted one
 * does not (the caller may fetch again).
 */
async function serveZeroRetention(
  reply: FastifyReply,
  key: string,
  files: Pick<PublicFiles, 'open' | 'stat'>,
  { bodiless, delivered }: { bodiless: boolean; delivered: (() => void) | undefined },
) {
  const noStore = (stat: BlobStat) =>
    withContentHeaders(reply, stat).header('cache-control', 'private, no-store').removeHeader('etag');
  if (bodiless) return noStore(await files.stat(key)).send();
  const found = await files.open(key);
  if (delivered) reply.raw.once('finish', delivered);
  return noStore(found.stat).send(found.stream);
}

function withCachingHeaders(reply: FastifyReply, stat: BlobStat): FastifyReply {
  return (
    reply
      .header('etag', stat.etag)
      // Keys never change meaning: uploads are content-addressed and results are keyed by task id.
      .header('cache-control', 'public, max-age=31536000, immutable')
  );
}

function withContentHeaders(reply: FastifyReply, stat: BlobStat): FastifyReply {
  return withCachingHeaders(reply, stat)
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'")
    .header('content-type', stat.contentType)
    .header('content-length', stat.bytes);
}

function notModified(reply: FastifyReply, stat: BlobStat): FastifyReply {
  return withCachingHeaders(reply, stat).code(304).send();
}

/** If-None-Match's weak comparison: `*`, or any listed tag equal to ours ignoring `W/`. */
function etagMatches(header: string, etag: string): boolean {
  const ours = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => {
    const theirs = tag.trim().replace(/^W\//, '');
    return theirs === '*' || theirs === ours;
  });
}
