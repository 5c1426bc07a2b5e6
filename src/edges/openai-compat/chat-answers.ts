import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { OpenAiImagesResponse } from '../../base/contract/openai.js';
import type { OpenAiChatCompletion } from '../../base/contract/openai-chat.js';
import type { Account } from '../../capabilities/accounts/index.js';
import type { ImageAnswers } from './image-answers.js';
import type { ImagePlan, ImageRequests } from './image-requests.js';
import { OpenAiCompatError, openAiErrorBody } from './openai-errors.js';

/** How a chat answer gives its images: data URLs (the dialect's default) or Atelier's own URLs. */
export type ChatImageFormat = 'data' | 'url';

type ChatImages = OpenAiChatCompletion['choices'][number]['message']['images'];

const HEARTBEAT_MS = 15_000;

/** An id for a chat answer, as OpenAI's look (`chatcmpl-…`). */
export const chatCompletionId = () => `chatcmpl-${randomBytes(12).toString('base64url')}`;

/** The media type of base64 image bytes, from their first bytes (the images are png, jpeg, webp or gif). */
function mediaTypeOf(b64: string): string {
  if (b64.startsWith('/9j/')) return 'image/jpeg';
  if (b64.startsWith('UklGR')) return 'image/webp';
  if (b64.startsWith('R0lGOD')) return 'image/gif';
  return 'image/png';
}

/** The answer's images as the dialect's image_url parts. */
function chatImagesOf(answer: OpenAiImagesResponse, format: ChatImageFormat): ChatImages {
  return answer.data.map((image) => {
    const b64 = image.b64_json ?? '';
    const url = format === 'url' ? (image.url ?? '') : `data:${mediaTypeOf(b64)};base64,${b64}`;
    return { type: 'image_url' as const, image_url: { url } };
  });
}

/** The short text beside the images (chat apps show it; a follow-up may send it back unharmed). */
const textOf = (count: number) => (count === 1 ? 'Here is the image.' : `Here are the ${count} images.`);

/** The chat usage of an answer: its upstream's token counts, zeros when none reported any. */
function chatUsageOf(answer: OpenAiImagesResponse) {
  const usage = answer.usage;
  return {
    prompt_tokens: usage?.input_tokens ?? 0,
    completion_tokens: usage?.output_tokens ?? 0,
    total_tokens: usage?.total_tokens ?? 0,
  };
}

/** A chat.completion of an images answer: one choice, the images in its message. */
export function chatCompletionOf(
  answer: OpenAiImagesResponse,
  model: string,
  format: ChatImageFormat,
): OpenAiChatCompletion {
  const images = chatImagesOf(answer, format);
  return {
    id: chatCompletionId(),
    object: 'chat.completion',
    created: answer.created,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: textOf(images.length), images },
        finish_reason: 'stop',
      },
    ],
    usage: chatUsageOf(answer),
  };
}

/** One streamed chat request. */
export interface ChatStreamRequest {
  reply: FastifyReply;
  account: Account;
  plan: ImagePlan;
  urls: string[];
  format: ChatImageFormat;
}

/**
 * `stream: true`: the dialect's chunks. The request is submitted first (a refusal is an ordinary
 * error answer), then the stream opens with the role; while the images render a keep-alive comment
 * goes every 15 s; then one chunk carries the text and the images, one finish_reason stop with
 * usage, then `data: [DONE]`. A failure after the stream began is a `data: { error }` line (what
 * OpenAI's SDK raises as an APIError), then the end.
 */
export async function streamChat(
  deps: { images: ImageRequests; answers: ImageAnswers; waitMs: number },
  input: ChatStreamRequest,
): Promise<void> {
  const { reply, account, plan } = input;
  plan.responseFormat = 'both';
  const { created, ids } = await deps.images.submit(account, plan, input.urls);
  const raw = reply.raw;
  reply.hijack();
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    'x-request-id': reply.request.id,
  });
  const base = { id: chatCompletionId(), object: 'chat.completion.chunk', created, model: plan.model.id };
  const open = () => !raw.writableEnded && !raw.destroyed;
  const send = (data: object) => open() && raw.write(`data: ${JSON.stringify(data)}\n\n`);
  const chunk = (delta: object, finish: 'stop' | null, extra: object = {}) =>
    send({ ...base, choices: [{ index: 0, delta, finish_reason: finish }], ...extra });
  chunk({ role: 'assistant', content: '' }, null);
  const heartbeat = setInterval(() => open() && raw.write(': keep-alive\n\n'), HEARTBEAT_MS);
  try {
    const answer = await deps.answers.untilGone(reply, (onWait) =>
      waitForAnswer(deps, account, ids, created, onWait),
    );
    const images = chatImagesOf(answer, input.format);
    chunk({ content: textOf(images.length), images }, null);
    chunk({}, 'stop', { usage: chatUsageOf(answer) });
    if (open()) raw.write('data: [DONE]\n\n');
  } catch (error) {
    const known = error instanceof OpenAiCompatError;
    if (!known) reply.request.log.error({ err: error, ids }, 'chat stream could not send its images');
    const status = known ? error.status : 500;
    const message = known ? error.message : `The images could not be read (task ids: ${ids.join(',')})`;
    send(openAiErrorBody(status, known ? error.code : 'internal_error', message));
  } finally {
    clearInterval(heartbeat);
    if (open()) raw.end();
  }
}

/** Waits for the tasks and answers their images; the ceiling passed (or the server closing) is a 504. */
async function waitForAnswer(
  deps: { images: ImageRequests; waitMs: number },
  account: Account,
  ids: string[],
  created: number,
  onWait: (stop: () => void) => void,
): Promise<OpenAiImagesResponse> {
  const wait = deps.images.wait(account.id, ids, deps.waitMs);
  onWait(wait.stop);
  const { records, allFinal } = await wait.outcome;
  if (!allFinal) {
    const list = ids.join(',');
    const message = `The images were not ready in time; they keep rendering. Poll GET /api/v1/tasks?ids=${list}`;
    throw new OpenAiCompatError(504, message, 'wait_timeout', null, false);
  }
  return deps.images.answer('both', created, records);
}
