import type { FastifyInstance } from 'fastify';
import { MAX_ZIP_ITEMS } from '../../base/contract/curation.js';
import { WEBSITE_TAG, websiteSession } from '../../base/contract/website/shared.js';
import { registerCurationRoutes } from '../curation-routes/curation-routes.js';
import type { WebsiteServices } from './website-services.js';

const forAccount = (route: string, more = '') => `${route} for the signed-in account${more}.`;

/**
 * The website's stars, collections and ZIP downloads (issue 30): /api/v1's routes of the same
 * names for the signed-in account (a work's star is at /works/{id}/star), through the same services.
 */
export async function curationRoutes(app: FastifyInstance, { services }: { services: WebsiteServices }) {
  registerCurationRoutes(app, {
    curation: services.curation,
    zipDownloads: services.zipDownloads,
    now: () => services.clock.now(),
    starPath: '/works/:id/star',
    tags: [WEBSITE_TAG],
    security: websiteSession,
    readErrors: ['unauthorized'],
    changeErrors: ['invalid_request', 'unauthorized', 'forbidden'],
    docs: {
      star: { summary: 'Star a saved work', description: forAccount('PUT /api/v1/generations/{id}/star') },
      unstar: {
        summary: 'Take the star off a saved work',
        description: forAccount('DELETE /api/v1/generations/{id}/star'),
      },
      collections: { summary: 'Collections', description: forAccount('GET /api/v1/collections') },
      create: { summary: 'Create a collection', description: forAccount('POST /api/v1/collections') },
      rename: { summary: 'Rename a collection', description: forAccount('PATCH /api/v1/collections/{id}') },
      delete: {
        summary: 'Delete a collection',
        description: forAccount('DELETE /api/v1/collections/{id}', ': its works stay'),
      },
      add: {
        summary: 'Add a saved work to a collection',
        description: forAccount('PUT /api/v1/collections/{id}/items/{generation_id}'),
      },
      remove: {
        summary: 'Take a saved work out of a collection',
        description: forAccount('DELETE /api/v1/collections/{id}/items/{generation_id}'),
      },
      zip: {
        summary: 'Download saved works and library items as one ZIP',
        description: forAccount(
          'GET /api/v1/downloads/zip',
          ` (at most ${MAX_ZIP_ITEMS} ids): a plain link, so the browser saves the stream to disk as it arrives`,
        ),
      },
      zipPost: {
        summary: 'Download saved works and library items as one ZIP (ids in the body)',
        description: forAccount(
          'POST /api/v1/downloads/zip',
          ` (at most ${MAX_ZIP_ITEMS} ids): the ids in a JSON body, for a selection whose link would pass the 16 kB a request line and its headers may take (431)`,
        ),
      },
    },
  });
}
