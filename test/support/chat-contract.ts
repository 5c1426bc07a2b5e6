import type { contractChecker } from './openapi-contract.js';

/**
 * POST /v1/chat/completions (issue 44) against its documented answers: the message's images, its
 * chunk stream (an error line when the image fails), refusals, and the asynchronous envelope.
 */
export async function exerciseChatCompletions(
  exercise: ReturnType<typeof contractChecker>['exercise'],
  h: { authorization: string },
) {
  const path = '/v1/chat/completions';
  const chat = (payload: Record<string, unknown>, status: number, headers: Record<string, string> = {}) =>
    exercise(
      'POST',
      path,
      {
        url: path,
        headers: { ...h, 'content-type': 'application/json', ...headers },
        payload: {
          messages: [{ role: 'user', content: 'contract' }],
          modalities: ['image', 'text'],
          ...payload,
        },
      },
      status,
    );
  const failing = [{ role: 'user', content: '[[fail]]' }];
  await chat({}, 200);
  await chat({ image_url_format: 'url' }, 200);
  await chat({ stream: true }, 200);
  await chat({ stream: true, messages: failing }, 200);
  await chat({ modalities: ['text'] }, 400);
  await chat({ model: 'no-such-model' }, 404);
  await chat({ messages: failing }, 502);
  await chat({}, 202, { prefer: 'respond-async' });
}
