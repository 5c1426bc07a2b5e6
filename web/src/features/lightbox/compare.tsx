import { useState } from 'react';
import { shortText } from '../../lib/text';
import { CloseIcon } from '../../ui/icons';
import { MAX_COMPARED } from '../curation/selection';
import type { LightboxItem } from './lightbox-items';

/**
 * Compare mode's state: the keys of the images side by side, in order. The last pane is the
 * candidate: ← and → walk it through the list (past the pinned ones) while the others stay.
 */
export function useCompare(items: readonly LightboxItem[], initial?: readonly string[]) {
  const [keys, setKeys] = useState<string[] | null>(() =>
    initial && initial.length >= 2 ? initial.slice(0, MAX_COMPARED) : null,
  );
  const withImage = items.filter((item) => item.url);
  const indexOf = (key: string) => withImage.findIndex((item) => item.key === key);
  /** The next image (by `step`) from `from` that is not shown yet. */
  const nextFree = (from: string, step: 1 | -1, shown: readonly string[]) => {
    for (let i = indexOf(from) + step; i >= 0 && i < withImage.length; i += step) {
      const key = withImage[i]?.key;
      if (key && !shown.includes(key)) return key;
    }
    return undefined;
  };
  const panes = (keys ?? []).flatMap((key) => withImage.filter((item) => item.key === key));
  return {
    active: keys !== null,
    panes,
    /** Starts with `key` and the image after it (before it at the end); false with one image only. */
    start(key: string): boolean {
      const other = nextFree(key, 1, [key]) ?? nextFree(key, -1, [key]);
      if (!other) return false;
      setKeys([key, other]);
      return true;
    },
    stop: () => setKeys(null),
    /** Moves the candidate (the last pane); false when there is nothing further that way. */
    move(step: 1 | -1): boolean {
      const list = keys ?? [];
      const last = list.at(-1);
      const next = last && nextFree(last, step, list);
      if (!next) return false;
      setKeys([...list.slice(0, -1), next]);
      return true;
    },
    /** Adds the next image not shown as a new candidate pane. */
    add(): boolean {
      const list = keys ?? [];
      const last = list.at(-1);
      const next = last && (nextFree(last, 1, list) ?? nextFree(last, -1, list));
      if (!next || list.length >= MAX_COMPARED) return false;
      setKeys([...list, next]);
      return true;
    },
    remove(key: string) {
      setKeys((list) => (list && list.length > 2 ? list.filter((k) => k !== key) : list));
    },
  };
}

export type Compare = ReturnType<typeof useCompare>;

/**
 * Two or more works side by side, each fitted whole at its own ratio with its prompt; with two, a
 * slider instead puts one over the other and a divider (a range input: drag it, or its arrow keys)
 * shows the first image left of it and the second right of it, for the same framing seen in turn.
 */
export function CompareView({ compare }: { compare: Compare }) {
  const [slider, setSlider] = useState(false);
  const [split, setSplit] = useState(50);
  const { panes } = compare;
  const [first, second] = panes;
  const sliding = slider && panes.length === 2 && first && second;
  return (
    <div className="compare">
      <div className="compare-tools">
        <button
          type="button"
          className="button small"
          aria-pressed={Boolean(sliding)}
          disabled={panes.length !== 2}
          title={panes.length === 2 ? undefined : 'The slider takes two images'}
          onClick={() => setSlider(!slider)}
        >
          Slider
        </button>
        <button
          type="button"
          className="button small"
          disabled={panes.length >= MAX_COMPARED}
          onClick={() => compare.add()}
        >
          Add image
        </button>
        <span className="small muted">← → change the last image</span>
      </div>
      {sliding ? (
        <div className="compare-slider">
          <div className="compare-stack">
            <img src={second.url} alt={second.alt} className="compare-image" draggable={false} />
            <img
              src={first.url}
              alt={first.alt}
              className="compare-image compare-top"
              draggable={false}
              style={{ clipPath: `inset(0 ${100 - split}% 0 0)` }}
            />
            <span className="compare-divider" style={{ left: `${split}%` }} aria-hidden="true" />
          </div>
          <input
            type="range"
            className="compare-range"
            min={0}
            max={100}
            value={split}
            aria-label={`Divider: “${shortText(first.alt, 40)}” on the left, “${shortText(second.alt, 40)}” on the right`}
            aria-valuetext={`${split} %`}
            onChange={(event) => setSplit(Number(event.target.value))}
          />
        </div>
      ) : (
        <ul className="compare-panes" data-panes={panes.length}>
          {panes.map((item, i) => (
            <li key={item.key} className="compare-pane">
              <img src={item.url} alt={item.alt} className="compare-image" draggable={false} />
              <p className="compare-caption">
                <span className="muted">{i + 1}.</span> {shortText(item.caption ?? item.alt, 80)}
              </p>
              {panes.length > 2 && (
                <button
                  type="button"
                  className="icon-button compare-remove"
                  aria-label={`Take “${shortText(item.alt, 40)}” out of the comparison`}
                  onClick={() => compare.remove(item.key)}
                >
                  <CloseIcon />
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
