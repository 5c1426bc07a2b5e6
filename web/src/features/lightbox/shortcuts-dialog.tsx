import { Dialog } from '../../ui/dialog';
import { SHORTCUTS } from './shortcuts';

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
