/**
 * Multi-turn image editing on Gemini (issue 44). Gemini 3 image models sign the parts of their
 * answer (`thoughtSignature`); to edit that image in a later turn, the earlier turns are sent back
 * as `contents` — the user's turn, then the model's turn with its parts and their signatures
 * exactly as answered — or the API answers 400 INVALID_ARGUMENT ("Image part is missing a
 * thought_signature in content position N, part position M"). The API is stateless: the
 * conversation travels whole in every request.
 *
 * Wire format checked against https://ai.google.dev/gemini-api/docs/image-generation (multi-turn
 * image editing) and https://ai.google.dev/gemini-api/docs/thought-signatures (2025-11): the
 * signature is a field of the part beside `inlineData` / `text`; thought parts (`thought: true`)
 * are the model's scratch images and are not part of the kept turn.
 */
import type { AnsweredPart, AnsweredTurn, ConversationTurn, ReferenceImage } from './provider.js';
import { isRecord } from './upstream-json.js';

type Json = Record<string, unknown>;

/** An image as an `inlineData` part. */
export const inlineOf = (image: Pick<ReferenceImage, 'bytes' | 'contentType'>) => ({
  inlineData: { mimeType: image.contentType, data: image.bytes.toString('base64') },
});

const signed = (signature: string | undefined) =>
  signature === undefined ? {} : { thoughtSignature: signature };

/** One earlier turn as `contents`: the user's content, then the model's with its signatures. */
function turnContents(turn: ConversationTurn): Json[] {
  return [
    { role: 'user', parts: [{ text: turn.user.prompt }, ...turn.user.references.map(inlineOf)] },
    {
      role: 'model',
      parts: turn.model.map((part) =>
        'image' in part
          ? { ...inlineOf(part.image), ...signed(part.thoughtSignature) }
          : { text: part.text, ...signed(part.thoughtSignature) },
      ),
    },
  ];
}

/** The earlier turns as `contents` (oldest first), and the bytes their images take. */
export function historyContents(history: readonly ConversationTurn[]): { contents: Json[]; bytes: number } {
  const contents = history.flatMap(turnContents);
  return { contents, bytes: Buffer.byteLength(JSON.stringify(contents)) };
}

/** The image the conversation's last model turn made: the parent image of the refinement. */
export function lastModelImage(history: readonly ConversationTurn[]): ReferenceImage | undefined {
  const last = history.at(-1);
  for (const part of [...(last?.model ?? [])].reverse()) if ('image' in part) return part.image;
  return undefined;
}

const signatureOf = (part: Json) =>
  typeof part.thoughtSignature === 'string'
    ? part.thoughtSignature
    : typeof part.thought_signature === 'string'
      ? part.thought_signature
      : undefined;

/**
 * The model's side of the answered turn, to keep: its texts and its last (the result) image, each
 * with its signature; thought parts and earlier images left out.
 */
export function answeredTurnOf(candidate: Json): AnsweredTurn {
  const raw =
    isRecord(candidate.content) && Array.isArray(candidate.content.parts) ? candidate.content.parts : [];
  const parts = raw.filter(isRecord).filter((part) => part.thought !== true);
  const isImage = (part: Json) => isRecord(part.inlineData) || isRecord(part.inline_data);
  const lastImage = parts.findLastIndex(isImage);
  const kept: AnsweredPart[] = [];
  for (const [index, part] of parts.entries()) {
    const signature = signed(signatureOf(part));
    if (index === lastImage) kept.push({ image: true, ...signature });
    else if (!isImage(part) && typeof part.text === 'string') kept.push({ text: part.text, ...signature });
  }
  return { parts: kept };
}
