import {
  openAiErrorBodySchema,
  openAiImagesResponseSchema,
  openAiImageTaskSchema,
} from '../../base/contract/openai.js';
import type {
  openAiImageEditEventSchema,
  openAiImageGenerationEventSchema,
} from '../../base/contract/openai-stream.js';
import { jsonResponse } from '../http/route-responses.js';
import { OPENAI_ERROR_STATUSES } from './openai-errors.js';

type ErrorStatus = keyof typeof OPENAI_ERROR_STATUSES;

/** The error answers a route declares, in OpenAI's shape (the serializer keeps param and code). */
export function openAiErrorResponses(statuses: readonly ErrorStatus[]) {
  return Object.fromEntries(
    [...statuses, 500 as const].map((status) => [
      status,
      {
        description: OPENAI_ERROR_STATUSES[status],
        content: { 'application/json': { schema: openAiErrorBodySchema } },
      },
    ]),
  );
}

/** 410: a refined image (previous_response_id, a chat's earlier image) or a result whose files were removed. */
export const IMAGE_ERRORS = [400, 401, 402, 403, 404, 409, 410, 413, 422, 429, 502, 504] as const;
export const SYNC_NOTE =
  'Synchronous: answers once every image has ended (ceiling ATELIER_OPENAI_WAIT_MS, default 300 s). Asynchronous on request (header Prefer: respond-async, or async: true): 202 at once with the task envelope and a Location to GET (header Preference-Applied: respond-async when the header asked). callback_url registers the signed webhook of POST /api/v1/generate. Errors use OpenAI’s shape { error: { message, type, param, code } }.';
/** The 200 answer: the images as JSON, or with stream: true the image's event stream. */
export const imagesOrStream = (
  events: typeof openAiImageGenerationEventSchema | typeof openAiImageEditEventSchema,
) => ({
  description:
    'The images that completed (application/json); with stream: true, an event stream of the image (text/event-stream), whose events’ data the schema describes',
  content: {
    'application/json': { schema: openAiImagesResponseSchema },
    'text/event-stream': { schema: events },
  },
});
export const ACCEPTED = jsonResponse(
  'Accepted (asynchronous): the request’s id and tasks; Location is its GET',
  openAiImageTaskSchema,
);
