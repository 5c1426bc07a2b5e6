import { useRef } from 'react';
import { useAction } from '../../lib/use-action';
import { type ActionChoice, submitAction, useActionChoices } from './image-actions';
import './action-bar.css';

/**
 * The configured actions as a compact menu (a Saved works card): a disclosure whose buttons run
 * one on the work's first image (`targetId`: its work id, or an image's task id). What happened is
 * said beside it; the new work shows in Create and in the work's versions strip.
 */
export function ActionMenu({ targetId, name }: { targetId: string; name: string }) {
  const choices = useActionChoices();
  const action = useAction();
  const menu = useRef<HTMLDetailsElement>(null);
  if (choices.length === 0) return null;
  const run = (choice: ActionChoice) => {
    if (menu.current) menu.current.open = false;
    void action.run(async () => {
      await submitAction(targetId, choice.body);
      return `${choice.progress} It shows in Create and in the work's versions.`;
    });
  };
  return (
    <div className="action-menu">
      <details
        ref={menu}
        onKeyDown={(event) => {
          // Esc closes the open menu, focus back on its summary.
          if (event.key !== 'Escape' || !menu.current?.open) return;
          event.stopPropagation();
          menu.current.open = false;
          menu.current.querySelector('summary')?.focus();
        }}
      >
        <summary className="button small" aria-label={`New version of: ${name}`}>
          New version
        </summary>
        <ul className="action-menu-list" aria-label={`New version of: ${name}`}>
          {choices.map((choice) => (
            <li key={choice.command}>
              <button
                type="button"
                className="button small ghost"
                disabled={action.busy}
                data-action={choice.command}
                onClick={() => run(choice)}
              >
                {choice.label}
              </button>
            </li>
          ))}
        </ul>
      </details>
      {(action.done || action.error) && (
        <p className={action.error ? 'error-text small' : 'muted small'} role="status">
          {action.error ?? action.done}
        </p>
      )}
    </div>
  );
}
