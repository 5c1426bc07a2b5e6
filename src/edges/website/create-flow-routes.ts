import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ESTIMATE_SAMPLE_TASKS,
  presetBodySchema,
  presetParamsSchema,
  presetSchema,
  presetsSchema,
  previewParamsSchema,
  previewQuerySchema,
  recentPromptsQuerySchema,
  recentPromptsSchema,
  taskEstimatesSchema,
  WEBSITE_TAG,
  websiteSession,
} from '../../base/contract/website.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse, noContent } from '../http/route-responses.js';
import { createPresets } from './presets.js';
import type { WebsiteServices } from './website-services.js';

/**
 * The creation view's helpers (issue 30): how long recent tasks took (the cards' estimate), the
 * account's recent prompts (prompt history, searchable) and named presets. Cancelling a task is
 * /api/v1's own POST /api/v1/tasks/{id}/cancel, which the session cookie (and its Origin check)
 * authenticates.
 */
export async function createFlowRoutes(app: FastifyInstance, { services }: { services: WebsiteServices }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { creations } = services;
  const presets = createPresets({ db: services.db, clock: services.clock });

  api.get(
    '/tasks/estimates',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Task duration estimates',
        description: `The median time from submit to result of the account's ${ESTIMATE_SAMPLE_TASKS} newest completed tasks, per model and size: the creation view says "about 40 s" while a task runs.`,
        security: websiteSession,
        response: {
          200: jsonResponse('Estimates', taskEstimatesSchema),
          ...errorResponses(['unauthorized']),
        },
      },
    },
    async (request) => ({
      estimates: await creations.durations(accountOf(request).id, ESTIMATE_SAMPLE_TASKS),
    }),
  );

  api.get(
    '/tasks/:id/preview',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'A rendering task’s preview',
        description:
          "Partial frame `frame` of one of the account's tasks while it renders (Create's live preview: the website asks its tasks for frames where the upstream makes them). A frame never changes, so it may be cached; it is gone once the task ends (404), as for an unknown task or another account's.",
        security: websiteSession,
        params: previewParamsSchema,
        querystring: previewQuerySchema,
        response: {
          200: {
            description: 'The frame (PNG)',
            content: { 'image/png': { schema: z.string().meta({ contentMediaType: 'image/png' }) } },
          },
          ...errorResponses(['invalid_request', 'unauthorized', 'not_found']),
        },
      },
    },
    async (request, reply) => {
      const frame = await services.previews.open(
        accountOf(request).id,
        request.params.id,
        request.query.frame,
      );
      // A stream, not the schema's string: sent as it is read (the zip downloads do the same).
      return (reply as FastifyReply)
        .headers({
          'content-type': frame.contentType,
          'content-length': String(frame.bytes),
          'cache-control': 'private, max-age=600, immutable',
          'x-content-type-options': 'nosniff',
        })
        .send(frame.stream);
    },
  );

  api.get(
    '/prompts',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Recent prompts',
        description:
          "The account's distinct prompts, most recently used first (from its saved works, so every device sees the same history); `q` searches them as saved works' search does.",
        security: websiteSession,
        querystring: recentPromptsQuerySchema,
        response: {
          200: jsonResponse('Recent prompts', recentPromptsSchema),
          ...errorResponses(['invalid_request', 'unauthorized']),
        },
      },
    },
    async (request) => ({
      prompts: await creations.recentPrompts(accountOf(request).id, request.query),
    }),
  );

  api.get(
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

  api.put(
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

  api.delete(
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
