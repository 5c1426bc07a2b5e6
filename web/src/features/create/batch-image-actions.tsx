import type { JSX } from 'react';
import type { TaskCard as Card } from '../../lib/types';
import { useAction } from '../../lib/use-action';
import { type ActionChoice, submitAction, useActionChoices } from '../lightbox/image-actions';
import '../lightbox/action-bar.css';

/** The actions Create's grid offers per image, as Midjourney's does: upscale (U) and vary (V). */
const GRID_COMMANDS = ['upscale', 'varySubtle'] as const;

/**
 * Per finished image of a batch, small buttons for the configured upscale and vary, laid over the
 * image's lower right corner (so they add nothing to the card's height, which Create's masonry
 * packs by, and leave the image itself to tap): `U1` `V1` on the first of several (the number is
 * the image's place), `U` `V` on a single image, each named in full for screen readers. Each makes a new task from that image; Create shows it as a card of its own. The
 * status of the last one (what was sent, or why it failed) shows under the card's text.
 */
export function useBatchImageActions({
  count,
  onSubmitted,
}: {
  /** How many images the batch has (one: the buttons say their action in words). */
  count: number;
  onSubmitted: () => void;
}): { buttonsFor: (card: Card) => JSX.Element | null; status: JSX.Element | null } {
  const choices = useActionChoices().filter((choice) =>
    (GRID_COMMANDS as readonly string[]).includes(choice.command),
  );
  const action = useAction();
  const run = (card: Card, choice: ActionChoice) =>
    action.run(async () => {
      await submitAction(card.task_id, choice.body);
      onSubmitted();
      return `${choice.progress} Its card is on its way.`;
    });
  const buttonsFor = (card: Card) => {
    if (choices.length === 0 || card.status !== 'completed') return null;
    const place = card.index + 1;
    return (
      <div className={count > 1 ? 'image-action-row on-image per-image' : 'image-action-row on-image'}>
        {choices.map((choice) => {
          // Short on the image (U2, or U alone on a single image), said in full to screen readers.
          const text = count > 1 ? `${choice.short}${place}` : choice.short;
          const label = choice.label.replace(' (subtle)', '');
          return (
            <button
              key={choice.command}
              type="button"
              className="button small"
              disabled={action.busy}
              data-action={choice.command}
              aria-label={count > 1 ? `${text}: ${choice.label}, image ${place}` : label}
              title={count > 1 ? `${choice.label}, image ${place}` : label}
              onClick={() => run(card, choice)}
            >
              {text}
            </button>
          );
        })}
      </div>
    );
  };
  const message = action.error ?? action.done;
  const status = message ? (
    <p className={action.error ? 'error-text' : 'muted small'} role="status">
      {message}
    </p>
  ) : null;
  return { buttonsFor, status };
}
