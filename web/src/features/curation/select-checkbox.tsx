import type { Selection } from './selection';

/**
 * A card's select box: shown on hover and focus (always on touch screens, and on every card while
 * something is selected). Space toggles it; Shift+click or Shift+Space selects the range from the
 * last one toggled.
 */
export function SelectCheckbox({
  id,
  label,
  selected,
  toggle,
}: {
  id: string;
  label: string;
  selected: boolean;
  toggle: Selection['toggle'];
}) {
  return (
    <label className="select-check">
      <input
        type="checkbox"
        checked={selected}
        // The click carries Shift (a keyboard's Space too, through the selection's key watch).
        onClick={(event) => toggle(id, event.shiftKey)}
        onChange={() => {}}
        aria-label={`Select: ${label}`}
      />
    </label>
  );
}
