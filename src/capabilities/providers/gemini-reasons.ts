/**
 * Why a Gemini answer holds no image: every `FinishReason` and `BlockedReason` the API defines
 * (googleapis/js-genai 3.3 `src/types.ts`; gemini-provider.test.ts checks the lists against the
 * SDK's enums), each with its sentence, the policy ones classed as blocks.
 */
import { assertNever } from '../../base/domain/assert-never.js';

/** Every `FinishReason` of the Gemini API (googleapis/js-genai `FinishReason`, checked by a test). */
export const FINISH_REASONS = [
  'FINISH_REASON_UNSPECIFIED',
  'STOP',
  'MAX_TOKENS',
  'SAFETY',
  'RECITATION',
  'LANGUAGE',
  'OTHER',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'MALFORMED_FUNCTION_CALL',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_OTHER',
  'NO_IMAGE',
  'IMAGE_RECITATION',
  'UNEXPECTED_TOOL_CALL',
  'TOO_MANY_TOOL_CALLS',
  'MISSING_THOUGHT_SIGNATURE',
  'MALFORMED_RESPONSE',
  'ESCALATION',
  'PUP_LIMITED_DISABLED',
  'CONTINUATION',
  'MODEL_ARMOR',
] as const;
export type FinishReason = (typeof FINISH_REASONS)[number];

/** Every `BlockedReason` of `promptFeedback` (googleapis/js-genai `BlockedReason`). */
export const BLOCK_REASONS = [
  'BLOCKED_REASON_UNSPECIFIED',
  'SAFETY',
  'OTHER',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'IMAGE_SAFETY',
  'MODEL_ARMOR',
  'JAILBREAK',
] as const;
export type BlockReason = (typeof BLOCK_REASONS)[number];

/** A reason token Atelier does not know yet: repeated only when it looks like an enum name. */
export const REASON_TOKEN = /^[A-Z][A-Z0-9_]{1,48}$/;

/** Why a candidate has no image, and whether that is a policy refusal (blocked) rather than a miss. */
export function explainFinish(reason: FinishReason): { text: string; blocked: boolean } {
  switch (reason) {
    case 'SAFETY':
    case 'IMAGE_SAFETY':
      return { text: 'the image was blocked by Gemini safety filters', blocked: true };
    case 'PROHIBITED_CONTENT':
    case 'IMAGE_PROHIBITED_CONTENT':
      return { text: 'the request was blocked as prohibited content', blocked: true };
    case 'BLOCKLIST':
      return { text: 'the prompt contains blocked terms', blocked: true };
    case 'SPII':
      return { text: 'the output was blocked for sensitive personal information', blocked: true };
    case 'RECITATION':
    case 'IMAGE_RECITATION':
      return { text: 'the output was blocked for reciting protected content', blocked: true };
    case 'ESCALATION':
      return { text: 'the request was filtered by an escalation rule', blocked: true };
    case 'PUP_LIMITED_DISABLED':
      return {
        text: 'the upstream account is limited or disabled for Prohibited Use Policy violations',
        blocked: true,
      };
    case 'MODEL_ARMOR':
      return { text: 'the answer was blocked by Model Armor', blocked: true };
    case 'LANGUAGE':
      return { text: 'the prompt language is not supported', blocked: false };
    case 'MAX_TOKENS':
    case 'CONTINUATION':
      return { text: 'the model ran out of output tokens before producing an image', blocked: false };
    case 'MISSING_THOUGHT_SIGNATURE':
      return { text: 'the upstream refused the request for a missing thought signature', blocked: false };
    case 'MALFORMED_RESPONSE':
      return { text: 'the model produced a malformed answer', blocked: false };
    case 'NO_IMAGE':
    case 'IMAGE_OTHER':
    case 'OTHER':
    case 'STOP':
    case 'FINISH_REASON_UNSPECIFIED':
      return { text: 'the model returned no image', blocked: false };
    case 'MALFORMED_FUNCTION_CALL':
    case 'UNEXPECTED_TOOL_CALL':
    case 'TOO_MANY_TOOL_CALLS':
      return { text: 'the model answered with a tool call instead of an image', blocked: false };
    default:
      return assertNever(reason, 'finish reason');
  }
}

export function explainBlock(reason: BlockReason): string {
  switch (reason) {
    case 'SAFETY':
    case 'IMAGE_SAFETY':
      return 'the prompt was blocked by Gemini safety filters';
    case 'PROHIBITED_CONTENT':
      return 'the prompt was blocked as prohibited content';
    case 'BLOCKLIST':
      return 'the prompt contains blocked terms';
    case 'MODEL_ARMOR':
      return 'the prompt was blocked by Model Armor';
    case 'JAILBREAK':
      return 'the prompt was blocked as a jailbreak attempt';
    case 'OTHER':
    case 'BLOCKED_REASON_UNSPECIFIED':
      return 'the prompt was blocked';
    default:
      return assertNever(reason, 'block reason');
  }
}
