import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { OPENAI_TAG, openAiGenerateBodySchema } from '../../base/contract/openai.js';
import { openAiImageGenerationEventSchema } from '../../base/contract/openai-stream.js';
import { startTimeline } from '../../base/observability/stage-timing.js';
import { accountOf } from '../http/authentication.js';
import { idempotencyHeadersSchema } from '../http/idempotency-hooks.js';
import { zeroRetentionAsked } from '../http/retention-header.js';
import { traceparentOf } from '../http/traceparent.js';
import type { ImageAnswers, OpenAiCompatDeps } from './image-answers.js';
import { ACCEPTED, IMAGE_ERRORS, imagesOrStream, openAiErrorResponses, SYNC_NOTE } from './route-docs.js';

/** POST /images/generations: images from a prompt (waited for, streamed, or accepted at once). */
export function generationRoutes(app: FastifyInstance, deps: OpenAiCompatDeps, answers: ImageAnswers) {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/images/generations',
    {
      schema: {
        tags: [OPENAI_TAG],
        operationId: 'openAiGenerateImages',
        summary: 'Create images (OpenAI Images API)',
        description: `${SYNC_NOTE} Idempotency-Key works as on POST /api/v1/generate.`,
        headers: idempotencyHeadersSchema,
        body: openAiGenerateBodySchema,
        response: {
          200: imagesOrStream(openAiImageGenerationEventSchema),
          202: ACCEPTED,
          ...openAiErrorResponses(IMAGE_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const timeline = startTimeline();
      // The way in (routing, the body's parse, the key, the schema): Fastify's clock since onRequest.
      const wayIn = timeline ? reply.elapsedTime : 0;
      const { body } = request;
      const plan = deps.images.plan({ ...body, references: 0 });
      plan.traceparent = traceparentOf(request);
      plan.zeroRetention = zeroRetentionAsked(request);
      plan.timeline = timeline;
      if (deps.streams.prepare(plan, body))
        return answers.streamOut(request, reply, plan, [], 'image_generation', body.quality);
      if (answers.wantsAsync(request, body.async))
        return answers.accept(request, reply, plan, [], 'generation');
      const answer = await answers.runAndWait(reply, accountOf(request), plan, []);
      if (timeline) reply.header('server-timing', `in;dur=${wayIn.toFixed(2)}, ${timeline.header()}`);
      return answer;
    },
  );
}
