import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { OPENAI_TAG } from '../../base/contract/openai.js';
import {
  openAiResponseCreateSchema,
  openAiResponseDeletedSchema,
  openAiResponseParamsSchema,
  openAiResponseSchema,
  openAiResponseStreamEventSchema,
} from '../../base/contract/openai-responses.js';
import type { Account } from '../../capabilities/accounts/index.js';
import { accountOf } from '../http/authentication.js';
import { idempotencyHeadersSchema } from '../http/idempotency-hooks.js';
import { zeroRetentionAsked } from '../http/retention-header.js';
import { jsonResponse } from '../http/route-responses.js';
import { traceparentOf } from '../http/traceparent.js';
import type { ImageAnswers } from './image-answers.js';
import { OpenAiCompatError } from './openai-errors.js';
import type { ResponseRequests, StartedResponse } from './responses-requests.js';
import { ResponseEventStream } from './responses-stream.js';
import { IMAGE_ERRORS, openAiErrorResponses } from './route-docs.js';

const CREATE_NOTE =
  'OpenAI’s Responses API with the image_generation tool (docs/openai-compat.md#responses-api): one image per response, made through POST /api/v1/generate’s path (tasks, budgets, capacity, webhooks, history). input: a prompt, or items — the last user message’s input_text is the prompt and its input_image parts (data: or http(s) URLs) the references. previous_response_id (or an image_generation_call / item_reference id ig_… in input) makes the new image refine that earlier image (lineage: its task is the parent). stream: true sends the response.* events, with partial_images frames. background: true answers at once (status queued); GET shows the result. Synchronous otherwise (ceiling ATELIER_OPENAI_WAIT_MS). Responses are kept per account like works (no expiry) unless store is false. Idempotency-Key works as on POST /api/v1/generate.';

/** POST /responses, GET and DELETE /responses/:id: the Responses API's image tool. */
export function responsesRoutes(app: FastifyInstance, requests: ResponseRequests, answers: ImageAnswers) {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.post(
    '/responses',
    {
      schema: {
        tags: [OPENAI_TAG],
        operationId: 'openAiCreateResponse',
        summary: 'Create a response with the image_generation tool (OpenAI Responses API)',
        description: CREATE_NOTE,
        headers: idempotencyHeadersSchema,
        body: openAiResponseCreateSchema,
        response: {
          200: {
            description:
              'The response (application/json); with stream: true its event stream (text/event-stream: response.created … response.completed)',
            content: {
              'application/json': { schema: openAiResponseSchema },
              'text/event-stream': { schema: openAiResponseStreamEventSchema },
            },
          },
          ...openAiErrorResponses(IMAGE_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const account = accountOf(request);
      const started = await requests.start(account, request.body, {
        traceparent: traceparentOf(request),
        zeroRetention: zeroRetentionAsked(request),
      });
      if (request.body.stream === true) return streamOut(requests, answers, reply, account, started);
      const { stored } = started;
      if (request.body.background === true)
        return requests.read(stored, (await requests.images.records(account.id, stored.taskIds)) ?? []);
      return answers.untilGone(reply, (onWait) => waitFor(requests, account, started, onWait));
    },
  );

  typed.get(
    '/responses/:id',
    {
      schema: {
        tags: [OPENAI_TAG],
        operationId: 'openAiGetResponse',
        summary: 'Retrieve a response (OpenAI Responses API)',
        description:
          'A stored response of this account, rebuilt from its tasks: queued or in_progress while its image renders (background), then completed with each image’s result, or failed. Another account’s, a deleted or an unknown id is a 404 in OpenAI’s shape; one whose image was removed from storage (its work deleted, or past its retention) is a 410.',
        params: openAiResponseParamsSchema,
        response: {
          200: jsonResponse('The response', openAiResponseSchema),
          ...openAiErrorResponses([401, 403, 404, 410]),
        },
      },
    },
    async (request) => requests.get(accountOf(request).id, request.params.id),
  );

  typed.delete(
    '/responses/:id',
    {
      schema: {
        tags: [OPENAI_TAG],
        operationId: 'openAiDeleteResponse',
        summary: 'Delete a response (OpenAI Responses API)',
        description:
          'Forgets a stored response (GET and previous_response_id no longer find it); its images stay works of the account (delete them in history). Another account’s or an unknown id is a 404.',
        params: openAiResponseParamsSchema,
        response: {
          200: jsonResponse('Deleted', openAiResponseDeletedSchema),
          ...openAiErrorResponses([401, 403, 404]),
        },
      },
    },
    async (request) => requests.remove(accountOf(request).id, request.params.id),
  );
}

/** Waits for the response's image; the ceiling passed → 504 naming the response to GET. */
async function waitFor(
  requests: ResponseRequests,
  account: Account,
  { stored }: StartedResponse,
  onWait: (stop: () => void) => void,
) {
  const wait = requests.images.wait(account.id, stored.taskIds, requests.waitMs);
  onWait(wait.stop);
  const { records, allFinal } = await wait.outcome;
  if (!allFinal) {
    const where =
      stored.body.store === false
        ? `task ids: ${stored.taskIds.join(',')}`
        : `GET /v1/responses/${stored.id}`;
    throw new OpenAiCompatError(
      504,
      `The image was not ready within ${requests.waitMs / 1000} s; it keeps rendering (${where})`,
      'wait_timeout',
      null,
      false,
    );
  }
  return requests.read(stored, records);
}

async function streamOut(
  requests: ResponseRequests,
  answers: ImageAnswers,
  reply: FastifyReply,
  account: Account,
  started: StartedResponse,
) {
  const records = (await requests.images.records(account.id, started.stored.taskIds)) ?? [];
  new ResponseEventStream(requests, {
    reply,
    accountId: account.id,
    stored: started.stored,
    partialImages: started.partialImages,
    onStop: (stop) => answers.register(stop),
  }).start(records);
}
