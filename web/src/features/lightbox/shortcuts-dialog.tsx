import { Dialog } from '../../ui/dialog';
import { ACTION_COMMANDS } from './image-actions';
import { type LightboxCommand, SHORTCUTS } from './shortcuts';

/** The list of the lightbox's shortcuts, in a dialog over it: the actions only where configured (`offered`). */
export function ShortcutsDialog({
  offered,
  onClose,
}: {
  offered: readonly LightboxCommand[];
  onClose: () => void;
}) {
  const rows = SHORTCUTS.filter(
    ({ command }) => !ACTION_COMMANDS.includes(command) || offered.includes(command),
  );
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
          {rows.map(({ keys, action }) => (
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
