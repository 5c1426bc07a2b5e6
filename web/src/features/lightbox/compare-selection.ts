import { useCallback, useState } from 'react';
import type { LightboxItem } from './lightbox-items';

/**
 * The selection bar's Compare, for any gallery (Saved works, the Library): each selected entry's
 * first image, in the list's order, opened in the lightbox's compare mode. `itemsOf` turns entries
 * into the lightbox's items (a work gives one per image, an asset one).
 */
export function useCompareSelection<T>(
  itemsOf: (entries: readonly T[]) => LightboxItem[],
  onNotice: (message: string) => void,
) {
  /** The images' keys the lightbox opens compared; undefined when it opens on one image. */
  const [keys, setKeys] = useState<string[]>();
  /**
   * Starts comparing `chosen` (the selected entries, in the list's order); the entry the lightbox
   * opens on, or undefined when fewer than two of them have an image (a notice says so).
   */
  const start = (chosen: readonly T[]): T | undefined => {
    const picks = chosen.flatMap((entry) => {
      const item = itemsOf([entry]).find((one) => one.url);
      return item ? [{ entry, key: item.key }] : [];
    });
    const [first] = picks;
    if (picks.length < 2 || !first) {
      onNotice('Compare needs two selected images');
      return undefined;
    }
    setKeys(picks.map((pick) => pick.key));
    return first.entry;
  };
  const stop = useCallback(() => setKeys(undefined), []);
  return { keys, start, stop };
}
