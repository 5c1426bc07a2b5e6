import type { ChatContentPart, ChatMessage } from '../../base/contract/openai-chat.js';
import { InvalidInput } from '../../base/domain/errors.js';
import { isDataUrl } from './data-url-images.js';

/**
 * A chat conversation read for one image turn: the prompt (the last user message's text parts),
 * that message's images (references), and the latest image an assistant message carried (the
 * work the turn may refine). Every refusal is a 400 naming `messages`.
 */
export interface ChatTurn {
  prompt: string;
  /** The last user message's image_url parts, in order: data URLs or http(s) URLs. */
  userImages: { url: string; field: string }[];
  /** The latest image of an assistant message before it (`images[]` or an image_url part). */
  assistantImage?: { url: string; field: string };
}

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'];
const TEXT_TYPES = ['text', 'input_text'];
const IMAGE_TYPES = ['image_url', 'input_image'];

const refuse = (message: string) => new InvalidInput(`messages: ${message}`, 'messages');

/** The URL of an image_url value (`{ url }` or a bare string), checked: a data URL or http(s). */
function imageUrlOf(value: ChatContentPart['image_url'], field: string): string {
  const url = (typeof value === 'string' ? value : value?.url)?.trim() ?? '';
  if (isDataUrl(url) || /^https?:\/\//i.test(url)) return url;
  throw refuse(`${field}: image_url.url must be a data URL or an http(s) URL`);
}

/** The parts of a message's content (a string is one text part). */
function partsOf(message: ChatMessage): ChatContentPart[] {
  const { content } = message;
  if (content === null || content === undefined) return [];
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/** The text and images of the last user message; a part of another kind is refused. */
function readUserMessage(message: ChatMessage, index: number) {
  const texts: string[] = [];
  const images: ChatTurn['userImages'] = [];
  for (const [j, part] of partsOf(message).entries()) {
    const field = `messages[${index}].content[${j}]`;
    if (TEXT_TYPES.includes(part.type)) texts.push(part.text ?? '');
    else if (IMAGE_TYPES.includes(part.type)) images.push({ url: imageUrlOf(part.image_url, field), field });
    else throw refuse(`${field}: type ${part.type} is not supported (text and image_url are)`);
  }
  return { prompt: texts.join('\n').trim(), images };
}

/** The last image of an assistant message: its `images[]` first, else its image_url parts. */
function assistantImageOf(message: ChatMessage, index: number): ChatTurn['assistantImage'] {
  const found: NonNullable<ChatTurn['assistantImage']>[] = [];
  for (const [j, part] of partsOf(message).entries()) {
    if (IMAGE_TYPES.includes(part.type)) {
      const field = `messages[${index}].content[${j}]`;
      found.push({ url: imageUrlOf(part.image_url, field), field });
    }
  }
  for (const [j, image] of (message.images ?? []).entries()) {
    const field = `messages[${index}].images[${j}]`;
    found.push({ url: imageUrlOf(image.image_url, field), field });
  }
  return found.at(-1);
}

/** Reads the conversation (see ChatTurn). */
export function readChatTurn(messages: readonly ChatMessage[]): ChatTurn {
  for (const [i, message] of messages.entries()) {
    if (!ROLES.includes(message.role))
      throw refuse(`messages[${i}].role ${message.role} is not one of ${ROLES.join(', ')}`);
  }
  const last = messages.findLastIndex((message) => message.role === 'user');
  const lastUser = messages[last];
  if (!lastUser) throw refuse('no user message: the last user message says what to make');
  const { prompt, images } = readUserMessage(lastUser, last);
  if (prompt === '') throw refuse(`messages[${last}] has no text: say what to make or change`);
  let assistantImage: ChatTurn['assistantImage'];
  for (let i = last - 1; i >= 0 && !assistantImage; i--) {
    const message = messages[i];
    if (message?.role === 'assistant') assistantImage = assistantImageOf(message, i);
  }
  return { prompt, userImages: images, ...(assistantImage ? { assistantImage } : {}) };
}
