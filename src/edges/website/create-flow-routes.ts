import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ESTIMATE_SAMPLE_TASKS,
  previewParamsSchema,
  previewQuerySchema,
  recentPromptsQuerySchema,
  recentPromptsSchema,
  taskEstimatesSchema,
} from '../../base/contract/website/create.js';
import { WEBSITE_TAG, websiteSession } from '../../base/contract/website/shared.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import { presetRoutes } from './preset-routes.js';
import type { WebsiteServices } from './website-services.js';

/**
 * The creation view's helpers (issue 30): how long recent tasks took (the cards' estimate), a
 * rendering task's preview frames, the account's recent prompts (prompt history, searchable) and
 * named presets. Cancelling a task is /api/v1's own POST /api/v1/tasks/{id}/cancel, which the
 * session cookie (and its Origin check) authenticates.
 */
export async function createFlowRoutes(app: FastifyInstance, { services }: { services: WebsiteServices }) {
  taskEstimatesRoute(app, services);
  taskPreviewRoute(app, services);
  recentPromptsRoute(app, services);
  presetRoutes(app, services);
}

/** GET /tasks/estimates: how long recent tasks took, per model and size. */
function taskEstimatesRoute(app: FastifyInstance, services: WebsiteServices) {
  const { creations } = services;
  app.withTypeProvider<ZodTypeProvider>().get(
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
}

/** GET /tasks/:id/preview: a partial frame of a rendering task. */
function taskPreviewRoute(app: FastifyInstance, services: WebsiteServices) {
  app.withTypeProvider<ZodTypeProvider>().get(
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
}

/** GET /prompts: the account's recent prompts, searchable. */
function recentPromptsRoute(app: FastifyInstance, services: WebsiteServices) {
  const { creations } = services;
  app.withTypeProvider<ZodTypeProvider>().get(
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
}
