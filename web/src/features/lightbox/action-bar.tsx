import { useState } from 'react';
import { messageOf } from '../../lib/api';
import { type ActionChoice, submitAction, useActionChoices } from './image-actions';
import type { LightboxItem } from './lightbox-items';
import type { Refine } from './refine';
import { canRefine } from './refine';
import type { CommandHandler, LightboxCommand } from './shortcuts';
import './action-bar.css';

/**
 * The lightbox's actions on the image shown (issue 45): one button and one key per configured
 * action; the new task is followed as Refine's is (pending in the versions strip, then shown).
 */
export function useImageActions(refine: Refine, item: LightboxItem | undefined, say: (m: string) => void) {
  const choices = useActionChoices();
  const [busy, setBusy] = useState(false);
  const ready = item !== undefined && canRefine(item) && !busy && refine.pending === undefined;
  const run = (choice: ActionChoice) => {
    if (!item || !ready) return;
    setBusy(true);
    submitAction(item.taskId ?? item.workId ?? '', choice.body).then(
      ([taskId]) => {
        setBusy(false);
        refine.follow(taskId ?? '', choice.progress);
      },
      (failure: unknown) => {
        setBusy(false);
        say(`${choice.label}: ${messageOf(failure)}`);
      },
    );
  };
  const commands: Partial<Record<LightboxCommand, CommandHandler>> = {};
  for (const choice of choices) commands[choice.command] = ready ? () => run(choice) : undefined;
  return { choices, ready, run, commands };
}
export type ImageActions = ReturnType<typeof useImageActions>;

/**
 * The actions' buttons, each with its key. At phone widths (lightbox CSS) a bar along the bottom
 * edge, in reach of a thumb, its buttons 44 px high, scrolling sideways when they do not fit.
 */
export function ImageActionBar({ actions }: { actions: ImageActions }) {
  if (actions.choices.length === 0) return null;
  return (
    <fieldset className="image-actions">
      <legend className="visually-hidden">New version</legend>
      {actions.choices.map((choice) => (
        <button
          key={choice.command}
          type="button"
          className="button small"
          disabled={!actions.ready}
          onClick={() => actions.run(choice)}
          aria-keyshortcuts={choice.key}
          data-action={choice.command}
        >
          {choice.label}{' '}
          <span className="lightbox-key" aria-hidden="true">
            {choice.key.replace('Shift+', '⇧')}
          </span>
        </button>
      ))}
    </fieldset>
  );
}
