import type { FakeAnswer } from './fake-http.js';

/** The `contents` of a request the fake accepted (its schema's shape, as far as signatures go). */
interface SentContents {
  contents: Array<{
    role?: string;
    parts: Array<{ thoughtSignature?: string } & ({ text: string } | { inlineData: unknown })>;
  }>;
}

const invalidArgument = (message: string): FakeAnswer => ({
  status: 400,
  json: { error: { code: 400, message, status: 'INVALID_ARGUMENT' } },
});

/**
 * A multi-turn request to a Gemini 3 image model: every image part of an earlier `model` turn must
 * carry the `thoughtSignature` this upstream issued on it, unchanged. Missing: 400 "Image part is
 * missing a thought_signature in content position N, part position M" (1-based, as Gemini 3.1 Flash
 * Image answers); one it never issued: 400 "invalid thought signature". (Gemini 3 Pro Image is
 * documented as lenient here; this fake holds every Gemini 3 model to the strict rule.)
 */
export function unsignedTurn(body: SentContents, issued: ReadonlySet<string>): FakeAnswer | undefined {
  for (const [c, content] of body.contents.entries()) {
    if (content.role !== 'model') continue;
    for (const [p, part] of content.parts.entries()) {
      if (!('inlineData' in part)) continue;
      if (part.thoughtSignature === undefined)
        return invalidArgument(
          `Image part is missing a thought_signature in content position ${c + 1}, part position ${p + 1}.`,
        );
      if (!issued.has(part.thoughtSignature))
        return invalidArgument(
          `Unable to submit request because it has an invalid thought signature for content at index ${c}.`,
        );
    }
  }
  return undefined;
}
