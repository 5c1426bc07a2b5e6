import type { FastifyInstance } from 'fastify';
import { MAX_ZIP_ITEMS } from '../../base/contract/curation.js';
import type { Curation } from '../../capabilities/curation/index.js';
import type { ZipDownloads } from '../../use-cases/downloads/index.js';
import { registerCurationRoutes } from '../curation-routes/curation-routes.js';
import { AUTH_ERRORS, WRITE_AUTH_ERRORS } from '../http/route-responses.js';

const TAG = 'Favourites and collections';
const STAR_DESCRIPTION =
  'History items then say `starred`, and GET /history?starred=true lists the starred ones. Doing it twice is harmless.';
const MEMBER_DESCRIPTION =
  'History items list the collections they are in (`collections`), and GET /history?collection={id} lists a collection. Doing it twice is harmless.';

const ZIP_DESCRIPTION = `Streams a ZIP of the original files of the works (every completed image of each) and assets named, at most ${MAX_ZIP_ITEMS} ids in all: each named from its prompt (ASCII, lower case, words joined by "-", unique, with its extension; an upload by its own name), then metadata.json listing each file's prompt, model, size, bytes, date, source and URL. An id that is not one of the account's saved works or assets is a 404 before anything is sent.`;

/**
 * Stars (PUT/DELETE /generations/{id}/star), collections (GET/POST /collections,
 * PATCH/DELETE /collections/{id}, PUT/DELETE /collections/{id}/items/{generation_id}) and the ZIP of
 * a selection (GET /downloads/zip). Another account's work or collection answers 404 as a missing one.
 */
export async function curationRoutes(
  app: FastifyInstance,
  { curation, zipDownloads, now }: { curation: Curation; zipDownloads: ZipDownloads; now: () => number },
) {
  registerCurationRoutes(app, {
    curation,
    zipDownloads,
    now,
    starPath: '/generations/:id/star',
    tags: [TAG],
    readErrors: AUTH_ERRORS,
    changeErrors: ['invalid_request', ...WRITE_AUTH_ERRORS],
    docs: {
      star: { operationId: 'starGeneration', summary: 'Star a generation', description: STAR_DESCRIPTION },
      unstar: {
        operationId: 'unstarGeneration',
        summary: 'Take the star off a generation',
        description: STAR_DESCRIPTION,
      },
      collections: { operationId: 'collections', summary: "The account's collections" },
      create: {
        operationId: 'createCollection',
        summary: 'Create a collection',
        description:
          'An empty named collection. Names are unique in the account, ignoring case (409 conflict).',
      },
      rename: { operationId: 'renameCollection', summary: 'Rename a collection' },
      delete: {
        operationId: 'deleteCollection',
        summary: 'Delete a collection',
        description: 'The collection goes; its works stay.',
      },
      add: {
        operationId: 'addToCollection',
        summary: 'Add a generation to a collection',
        description: MEMBER_DESCRIPTION,
      },
      remove: {
        operationId: 'removeFromCollection',
        summary: 'Take a generation out of a collection',
        description: MEMBER_DESCRIPTION,
      },
      zip: {
        operationId: 'downloadZip',
        summary: 'Download generations and assets as one ZIP',
        description: ZIP_DESCRIPTION,
      },
      zipPost: {
        operationId: 'downloadZipPost',
        summary: 'Download generations and assets as one ZIP (ids in the body)',
        description: `${ZIP_DESCRIPTION} The same download as GET /api/v1/downloads/zip, the ids in a JSON body: a selection whose link would pass the 16 kB a request line and its headers may take (431) fits here. It only reads, so a read-only key may call it.`,
      },
    },
  });
}
