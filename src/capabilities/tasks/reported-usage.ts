import type { ImageUsage } from '../providers/index.js';

/** The token usage upstreams reported, in Atelier's neutral shape (see ImageUsage). */
export type ReportedUsage = ImageUsage;

/**
 * The usage of several images added up; undefined when none was reported (Atelier never invents
 * tokens). A detail is in the sum when any image reported it (the others count 0 towards it).
 */
export function sumUsage(reported: readonly ReportedUsage[]): ReportedUsage | undefined {
  if (reported.length === 0) return undefined;
  const sum = (pick: (usage: ReportedUsage) => number | undefined) =>
    reported.reduce((total, usage) => total + (pick(usage) ?? 0), 0);
  const usage: ReportedUsage = {
    input_tokens: sum((u) => u.input_tokens),
    output_tokens: sum((u) => u.output_tokens),
    total_tokens: sum((u) => u.total_tokens),
  };
  if (reported.some((u) => u.input_tokens_details))
    usage.input_tokens_details = {
      image_tokens: sum((u) => u.input_tokens_details?.image_tokens),
      text_tokens: sum((u) => u.input_tokens_details?.text_tokens),
    };
  if (reported.some((u) => u.thinking_tokens !== undefined))
    usage.thinking_tokens = sum((u) => u.thinking_tokens);
  return usage;
}
