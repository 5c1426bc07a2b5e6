/**
 * Create's texts (issue 30): elapsed time, the estimate, a preset's suffix. No imports, so the
 * server-side unit tests can load it (test/website/create-flow-units.test.ts).
 */

/** "12 s", "1 min 05 s": elapsed or expected time, short. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** "about 40 s", "about 2 min": an estimate, rounded as a person would say it. */
export function formatEstimate(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds < 60) return `about ${seconds < 10 ? seconds : Math.round(seconds / 5) * 5} s`;
  return `about ${Math.round(seconds / 60)} min`;
}

/** The prompt with a preset's style suffix appended (once: a prompt that ends with it keeps as is). */
export function withSuffix(prompt: string, suffix: string | undefined, max = 8000): string {
  const style = (suffix ?? '').trim();
  if (style === '') return prompt;
  const base = prompt.trimEnd();
  if (base.endsWith(style)) return prompt;
  if (base === '') return style.replace(/^[,;.\s]+/, '').slice(0, max);
  const joined = /^[,;.]/.test(style) ? `${base}${style}` : `${base}, ${style}`;
  return joined.slice(0, max);
}
