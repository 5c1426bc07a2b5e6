import { useGalleryView, useStarredFirst } from './grid-view';
import type { Density, GalleryKind } from './virtual-rows';
import './grid-view.css';

const DENSITIES: Array<{ value: Density; label: string }> = [
  { value: 'compact', label: 'Compact' },
  { value: 'comfortable', label: 'Comfortable' },
  { value: 'large', label: 'Large' },
];

/**
 * How a gallery is shown, remembered in this browser (web/src/ui/grid/grid-view.ts): card size, day
 * headings, and on Saved works starred works pinned first.
 */
export function GridViewControls({ kind }: { kind: GalleryKind }) {
  const view = useGalleryView(kind);
  const [starredFirst, setStarredFirst] = useStarredFirst();
  return (
    <fieldset className="grid-view">
      <legend className="visually-hidden">View</legend>
      <label className="grid-view-density">
        <span>Card size</span>
        <select
          value={view.density}
          onChange={(event) => view.set({ density: event.target.value as Density })}
        >
          {DENSITIES.map((density) => (
            <option key={density.value} value={density.value}>
              {density.label}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        className="button small toggle"
        aria-pressed={view.byDay}
        onClick={() => view.set({ byDay: !view.byDay })}
      >
        By day
      </button>
      {kind === 'works' && (
        <button
          type="button"
          className="button small toggle"
          aria-pressed={starredFirst}
          onClick={() => setStarredFirst(!starredFirst)}
        >
          Stars first
        </button>
      )}
    </fieldset>
  );
}
