import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { OPENAI_TAG, openAiErrorBodySchema } from '../../base/contract/openai.js';
import {
  openAiChatBodySchema,
  openAiChatChunkSchema,
  openAiChatCompletionSchema,
} from '../../base/contract/openai-chat.js';
import { accountOf } from '../http/authentication.js';
import { idempotencyHeadersSchema } from '../http/idempotency-hooks.js';
import { zeroRetentionAsked } from '../http/retention-header.js';
import { traceparentOf } from '../http/traceparent.js';
import { chatCompletionOf, streamChat } from './chat-answers.js';
import { planChatTurn } from './chat-plan.js';
import type { ImageAnswers, OpenAiCompatDeps } from './image-answers.js';
import { ACCEPTED, IMAGE_ERRORS, openAiErrorResponses, SYNC_NOTE } from './route-docs.js';

/** A conversation carries its images inline (data URLs): room for several turns of large images. */
export const CHAT_BODY_LIMIT = 64 * 1024 * 1024;

const DESCRIPTION = `Chat completions with image output, as OpenRouter and Vercel's AI gateway speak them (docs/openai-compat.md#chat-completions). The prompt is the last user message's text; its image_url parts (data URLs, or http(s) URLs fetched safely) make an edit (one) or a fusion (several). The latest assistant image in messages that is one of this account's works (its file URL, or a data URL of its bytes) becomes the parent: the new work is its next version (history parentId). modalities must include image (absent: ["image","text"]). The answer's choices[0].message.images[] are image_url parts (data URLs; Atelier's URLs with image_url_format url); stream: true sends chat.completion.chunk lines then [DONE]. ${SYNC_NOTE} Asynchronous answers are the image task envelope, read with GET /v1/images/generations/{id} (or edits/{id}). Idempotency-Key works as on POST /api/v1/generate.`;

/** POST /chat/completions: an image turn of a chat conversation (waited for, streamed, or accepted at once). */
export function chatCompletionRoutes(app: FastifyInstance, deps: OpenAiCompatDeps, answers: ImageAnswers) {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/chat/completions',
    {
      bodyLimit: CHAT_BODY_LIMIT,
      schema: {
        tags: [OPENAI_TAG],
        operationId: 'openAiChatCompletions',
        summary: 'Create a chat completion with image output (OpenRouter dialect)',
        description: DESCRIPTION,
        headers: idempotencyHeadersSchema,
        body: openAiChatBodySchema,
        response: {
          200: {
            description:
              'The assistant message with its images (application/json); with stream: true, chat.completion.chunk data lines (text/event-stream)',
            content: {
              'application/json': { schema: openAiChatCompletionSchema },
              'text/event-stream': { schema: z.union([openAiChatChunkSchema, openAiErrorBodySchema]) },
            },
          },
          202: ACCEPTED,
          ...openAiErrorResponses([...IMAGE_ERRORS, 415]),
        },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const account = accountOf(request);
      const zeroRetention = zeroRetentionAsked(request);
      const planDeps = { ...deps.chat, catalog: deps.catalog, images: deps.images, uploads: deps.uploads };
      const { plan, urls } = await planChatTurn(planDeps, account, body);
      plan.traceparent = traceparentOf(request);
      if (zeroRetention) plan.zeroRetention = true;
      const format = body.image_url_format ?? 'data';
      if (body.stream === true) {
        const streamDeps = { images: deps.images, answers, waitMs: deps.chat.waitMs };
        return streamChat(streamDeps, { reply, account, plan, urls, format });
      }
      if (answers.wantsAsync(request, body.async))
        return answers.accept(
          request,
          reply,
          plan,
          urls,
          urls.length > 0 || plan.parentId ? 'edit' : 'generation',
        );
      plan.responseFormat = 'both';
      const answer = await answers.runAndWait(reply, account, plan, urls);
      return chatCompletionOf(answer, plan.model.id, format);
    },
  );
}
