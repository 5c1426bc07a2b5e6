import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  presetBodySchema,
  presetParamsSchema,
  presetSchema,
  presetsSchema,
} from '../../base/contract/website/create.js';
import { WEBSITE_TAG, websiteSession } from '../../base/contract/website/shared.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse, noContent } from '../http/route-responses.js';
import { createPresets, type Presets } from './presets.js';
import type { WebsiteServices } from './website-services.js';

/** The Create form's named presets (presets.ts): listed, saved, deleted. */
export function presetRoutes(app: FastifyInstance, services: WebsiteServices) {
  const presets = createPresets({ db: services.db, clock: services.clock });
  listPresetsRoute(app, presets);
  savePresetRoute(app, presets);
  deletePresetRoute(app, presets);
}

/** GET /presets: the account's presets, by name. */
function listPresetsRoute(app: FastifyInstance, presets: Presets) {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/presets',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Presets',
        description: "The account's named presets of the Create form, by name.",
        security: websiteSession,
        response: { 200: jsonResponse('Presets', presetsSchema), ...errorResponses(['unauthorized']) },
      },
    },
    async (request) => ({ presets: await presets.list(accountOf(request).id) }),
  );
}

/** PUT /presets/:name: saves a preset, replacing one of the same name. */
function savePresetRoute(app: FastifyInstance, presets: Presets) {
  app.withTypeProvider<ZodTypeProvider>().put(
    '/presets/:name',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Save a preset',
        description:
          'Saves the named preset (model, mode, aspect, size, count, an optional style suffix), replacing one of the same name. At most 50 per account (409 past it).',
        security: websiteSession,
        params: presetParamsSchema,
        body: presetBodySchema,
        response: {
          200: jsonResponse('Saved', presetSchema),
          ...errorResponses(['invalid_request', 'unauthorized', 'forbidden', 'conflict']),
        },
      },
    },
    async (request) => presets.save(accountOf(request).id, request.params.name, request.body),
  );
}

/** DELETE /presets/:name. */
function deletePresetRoute(app: FastifyInstance, presets: Presets) {
  app.withTypeProvider<ZodTypeProvider>().delete(
    '/presets/:name',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Delete a preset',
        description: 'Deletes the named preset.',
        security: websiteSession,
        params: presetParamsSchema,
        response: {
          204: noContent('Deleted'),
          ...errorResponses(['invalid_request', 'unauthorized', 'forbidden', 'not_found']),
        },
      },
    },
    async (request, reply) => {
      await presets.remove(accountOf(request).id, request.params.name);
      return reply.code(204).send(null);
    },
  );
}
