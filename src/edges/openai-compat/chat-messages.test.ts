import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatMessage } from '../../base/contract/openai-chat.js';
import { InvalidInput } from '../../base/domain/errors.js';
import { readChatTurn } from './chat-messages.js';
import { checkModalities } from './chat-plan.js';

const png = 'data:image/png;base64,iVBORw0KGgo=';
const image = (url: string) => ({ type: 'image_url', image_url: { url } });
const refusal =
  (pattern: RegExp, field = 'messages') =>
  (error: unknown) =>
    error instanceof InvalidInput && error.field === field && pattern.test(error.message);

test('the prompt is the last user message’s text; its images are the references', () => {
  const turn = readChatTurn([
    { role: 'system', content: 'you draw' },
    { role: 'user', content: 'first' },
    {
      role: 'user',
      content: [{ type: 'text', text: 'a cat' }, image(png), { type: 'input_text', text: 'on a mat' }],
    },
  ] as ChatMessage[]);
  assert.equal(turn.prompt, 'a cat\non a mat');
  assert.deepEqual(turn.userImages, [{ url: png, field: 'messages[2].content[1]' }]);
  assert.equal(turn.assistantImage, undefined);
});

test('the latest assistant image before the last user message: images[] over content parts, the last one', () => {
  const messages = [
    { role: 'user', content: 'a' },
    { role: 'assistant', content: 'one', images: [image('https://x.test/1.png')] },
    { role: 'user', content: 'b' },
    {
      role: 'assistant',
      content: [image('https://x.test/2.png')],
      images: [image('https://x.test/3.png'), { image_url: 'https://x.test/4.png' }],
    },
    { role: 'assistant', content: 'no image here' },
    { role: 'user', content: 'c' },
    { role: 'assistant', images: [image('https://x.test/after.png')] },
  ] as ChatMessage[];
  const turn = readChatTurn(messages.slice(0, 6));
  assert.deepEqual(turn.assistantImage, { url: 'https://x.test/4.png', field: 'messages[3].images[1]' });
  // An assistant image after the last user message is not what the turn refines.
  assert.equal(readChatTurn(messages).assistantImage?.url, 'https://x.test/4.png');
});

test('refusals name messages: no user message, no text, an unknown role or part, a URL of another scheme', () => {
  assert.throws(() => readChatTurn([{ role: 'system', content: 'x' }]), refusal(/no user message/));
  assert.throws(
    () => readChatTurn([{ role: 'user', content: [image(png)] }] as ChatMessage[]),
    refusal(/no text/),
  );
  assert.throws(() => readChatTurn([{ role: 'robot', content: 'x' }]), refusal(/role robot/));
  const audio = [{ role: 'user', content: [{ type: 'input_audio' }] }] as ChatMessage[];
  assert.throws(() => readChatTurn(audio), refusal(/type input_audio is not supported/));
  const ftp = [{ role: 'user', content: [{ type: 'text', text: 'x' }, image('ftp://x.test/a.png')] }];
  assert.throws(() => readChatTurn(ftp as ChatMessage[]), refusal(/data URL or an http\(s\) URL/));
});

test('modalities: absent or with image passes; text alone or an unknown one is refused naming modalities', () => {
  checkModalities(undefined);
  checkModalities(null);
  checkModalities(['image']);
  checkModalities(['text', 'image']);
  assert.throws(
    () => checkModalities(['text'], 'flash2'),
    refusal(/flash2 produces images only/, 'modalities'),
  );
  assert.throws(() => checkModalities([]), refusal(/must include image/, 'modalities'));
  assert.throws(() => checkModalities(['image', 'audio']), refusal(/audio is not supported/, 'modalities'));
});
