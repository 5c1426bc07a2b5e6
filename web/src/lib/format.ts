/** Display helpers. */

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The page is in English: dates are written in English, in the browser's own time zone. */
const dateFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });
const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** "3 minutes ago" for recent times, a date otherwise. */
export function formatWhen(ms: number, now = Date.now()): string {
  const seconds = Math.round((ms - now) / 1000);
  if (Math.abs(seconds) < 60) return 'just now';
  if (Math.abs(seconds) < 3600) return relative.format(Math.round(seconds / 60), 'minute');
  if (Math.abs(seconds) < 86_400) return relative.format(Math.round(seconds / 3600), 'hour');
  return dateFormat.format(ms);
}

export function formatDate(ms: number): string {
  return dateFormat.format(ms);
}

/** `16:9` → `16 / 9` for CSS aspect-ratio (falls back to square). */
export function cssAspect(aspect: string): string {
  const match = /^(\d+):(\d+)$/.exec(aspect);
  return match ? `${match[1]} / ${match[2]}` : '1 / 1';
}

export const MODE_LABELS: Record<string, string> = { text: 'Text to image', edit: 'Edit', fusion: 'Fusion' };
export const SIZE_HINTS: Record<string, string> = { '1K': '≈1 MP', '2K': '≈4 MP', '4K': '≈16 MP' };

/** A file name for downloading a result: the prompt's first words plus the id. */
export function downloadName(prompt: string, id: string, url: string): string {
  const extension = /\.([a-z0-9]+)(?:$|\?)/i.exec(url)?.[1] ?? 'png';
  const words = prompt
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `${words || 'atelier'}-${id.slice(-6)}.${extension}`;
}

/**
 * "Waiting for upstream capacity · #3 in your queue · starts ~in 40 s": the place among the account's
 * own waiting tasks and the start estimate, when the record has them (an estimate, read at render).
 */
export function waitingText(
  card: { queue_position?: number | undefined; estimated_start_at?: string | undefined },
  now = Date.now(),
): string {
  const parts = ['Waiting for upstream capacity'];
  if (card.queue_position !== undefined) parts.push(`#${card.queue_position} in your queue`);
  const at = card.estimated_start_at === undefined ? Number.NaN : Date.parse(card.estimated_start_at);
  if (Number.isFinite(at)) {
    const seconds = Math.round((at - now) / 1000);
    parts.push(
      seconds <= 5
        ? 'starts soon'
        : seconds < 90
          ? `starts ~in ${seconds} s`
          : `starts ~in ${Math.round(seconds / 60)} min`,
    );
  }
  return parts.join(' · ');
}
