import type { LibraryAsset } from './types';

/**
 * `text` cut to at most `max` characters at a word boundary, with an ellipsis when cut (a
 * single word longer than `max` is cut inside). For accessible names and captions that must
 * not carry a whole 8,000-character prompt.
 */
export function shortText(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * Inserts `pasted` into `value` in place of [start, end), keeping the result within `max`
 * characters: a paste that does not fit is cut at its last word boundary (a whitespace) that
 * fits. Returns the new value, the caret after the inserted text, and whether it was cut.
 */
export function pasteWithin(
  value: string,
  pasted: string,
  start: number,
  end: number,
  max: number,
): { value: string; caret: number; cut: boolean } {
  const room = Math.max(0, max - (value.length - (end - start)));
  let inserted = pasted;
  if (pasted.length > room) {
    inserted = pasted.slice(0, room);
    // Stop at the last whitespace when the cut would split a word.
    if (/\S/.test(pasted.charAt(room))) {
      const boundary = inserted.search(/\s\S*$/);
      if (boundary > 0) inserted = inserted.slice(0, boundary);
    }
    inserted = inserted.trimEnd();
  }
  return {
    value: value.slice(0, start) + inserted + value.slice(end),
    caret: start + inserted.length,
    cut: inserted.length < pasted.length,
  };
}

/** Alt text of a library image: the prompt for results, a description for uploads. */
export function assetAlt(asset: LibraryAsset): string {
  return asset.kind === 'result' && asset.prompt
    ? asset.prompt
    : `Uploaded image, ${asset.width} × ${asset.height}`;
}

const uploadedAt = new Intl.DateTimeFormat('en', {
  month: 'short',
  day: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
});

/** What a library image is called: a result's prompt, an upload's file name ("Upload of Nov 25, 2:02 PM" when it has none). */
export function captionOf(asset: LibraryAsset): string {
  if (asset.kind === 'result' && asset.prompt) return asset.prompt;
  return asset.name ?? `Upload of ${uploadedAt.format(asset.createdAt)}`;
}
