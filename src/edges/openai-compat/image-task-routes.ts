import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  OPENAI_TAG,
  openAiImageTaskParamsSchema,
  openAiImageTaskQuerySchema,
  openAiImageTaskSchema,
} from '../../base/contract/openai.js';
import { accountOf } from '../http/authentication.js';
import { jsonResponse } from '../http/route-responses.js';
import type { ImageAnswers, OpenAiCompatDeps } from './image-answers.js';
import { imageTaskSeal, readImageTask } from './image-tasks.js';
import { openAiErrorResponses } from './route-docs.js';

/** GET /images/generations/:id and /images/edits/:id: an asynchronous request's state. */
export function imageTaskRoutes(app: FastifyInstance, deps: OpenAiCompatDeps, answers: ImageAnswers) {
  for (const [kind, path] of [
    ['generation', 'generations'],
    ['edit', 'edits'],
  ] as const) {
    imageTaskRoute(app, deps, answers, kind, path);
  }
}

function imageTaskRoute(
  app: FastifyInstance,
  deps: OpenAiCompatDeps,
  answers: ImageAnswers,
  kind: 'generation' | 'edit',
  path: 'generations' | 'edits',
) {
  app.withTypeProvider<ZodTypeProvider>().get(
    `/images/${path}/:id`,
    {
      schema: {
        tags: [OPENAI_TAG],
        operationId: kind === 'edit' ? 'openAiImageEditTask' : 'openAiImageGenerationTask',
        summary: `Read an asynchronous image ${kind} (Atelier’s, beside OpenAI’s routes)`,
        description:
          'The id of a 202 answer (either GET path reads any such id): queued or in_progress with the task records; completed with the synchronous answer (data as response_format asked, size, output_format) and the records; failed with OpenAI’s error object. wait=N long-polls up to N seconds for every task to end. Only the owner’s ids: any other is a 404 in OpenAI’s shape.',
        params: openAiImageTaskParamsSchema,
        querystring: openAiImageTaskQuerySchema,
        response: {
          200: jsonResponse('The request’s state', openAiImageTaskSchema),
          ...openAiErrorResponses([400, 401, 403, 404, 410]),
        },
      },
    },
    async (request, reply) => {
      const accountId = accountOf(request).id;
      const waitMs = request.query.wait * 1000;
      return answers.untilGone(reply, (onWait) =>
        readImageTask(
          deps.images,
          accountId,
          imageTaskSeal(deps.stateIdKey, accountId),
          request.params.id,
          waitMs,
          onWait,
        ),
      );
    },
  );
}
