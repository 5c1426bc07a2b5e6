import { Dialog } from '../../ui/dialog';

/** The lightbox's keys, as the `?` list shows them (docs/website.md has the same table). */
export const SHORTCUTS: ReadonlyArray<{ keys: string[]; action: string }> = [
  { keys: ['←', '→'], action: 'Previous / next image (at the end of a loaded page, the next page loads)' },
  { keys: ['Home', 'End'], action: 'First / last loaded image' },
  { keys: ['Z'], action: 'Zoom to 100 % (actual pixels) / fit to the screen' },
  { keys: ['←', '→', '↑', '↓'], action: 'While zoomed: pan (so do dragging and scrolling)' },
  { keys: ['K'], action: 'Compare: this image beside the next (← → change the second; a slider for two)' },
  { keys: ['I'], action: 'Show or hide the details' },
  { keys: ['D'], action: 'Download' },
  { keys: ['S'], action: 'Star or unstar the work' },
  { keys: ['C'], action: 'Copy the prompt' },
  { keys: ['L'], action: "Copy the image's link" },
  { keys: ['R'], action: 'Reuse settings (fills Create)' },
  { keys: ['E', 'U'], action: 'Use as reference (in Create)' },
  { keys: ['Delete', 'Backspace'], action: 'Delete the work, or an upload (asks first)' },
  { keys: ['?'], action: 'This list' },
  { keys: ['Esc'], action: 'Close' },
];

/** The list of the lightbox's shortcuts, in a dialog over it. */
export function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose}>
      <table className="shortcuts">
        <thead>
          <tr>
            <th scope="col">Keys</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {SHORTCUTS.map(({ keys, action }) => (
            <tr key={action}>
              <td>
                {keys.map((key, i) => (
                  <span key={key}>
                    {i > 0 && (keys.length === 4 ? ' ' : ' or ')}
                    <kbd>{key}</kbd>
                  </span>
                ))}
              </td>
              <td>{action}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  );
}
