import type { TaskCard as Card } from '../../lib/types';
import { useAction } from '../../lib/use-action';
import { type ActionChoice, submitAction, useActionChoices } from '../lightbox/image-actions';
import '../lightbox/action-bar.css';

/** The actions Create's grid offers per image, as Midjourney's does: upscale (U) and vary (V). */
const GRID_COMMANDS = ['upscale', 'varySubtle'] as const;

/**
 * Per image of a batch, small buttons for the configured upscale and vary: `U1`…`U4` and `V1`…`V4`
 * under a grid of several (the number is the image's place), `Upscale` / `Vary` under a single
 * image. Each makes a new task from that image; Create shows it as a card of its own.
 */
export function BatchImageActions({
  completed,
  count,
  onSubmitted,
}: {
  /** The batch's finished images. */
  completed: readonly Card[];
  /** How many images the batch has (one: the buttons say their action in words). */
  count: number;
  onSubmitted: () => void;
}) {
  const choices = useActionChoices().filter((choice) =>
    (GRID_COMMANDS as readonly string[]).includes(choice.command),
  );
  const action = useAction();
  if (choices.length === 0 || completed.length === 0) return null;
  const run = (card: Card, choice: ActionChoice) =>
    action.run(async () => {
      await submitAction(card.task_id, choice.body);
      onSubmitted();
      return `${choice.progress} Its card is on its way.`;
    });
  return (
    <div className={count > 1 ? 'image-action-rows per-image' : 'image-action-rows'}>
      {choices.map((choice) => (
        <div key={choice.command} className="image-action-row">
          {completed.map((card) => {
            const place = card.index + 1;
            const text = count > 1 ? `${choice.short}${place}` : choice.label.replace(' (subtle)', '');
            return (
              <button
                key={card.task_id}
                type="button"
                className="button small"
                disabled={action.busy}
                data-action={choice.command}
                aria-label={count > 1 ? `${text}: ${choice.label}, image ${place}` : undefined}
                title={count > 1 ? `${choice.label}, image ${place}` : undefined}
                onClick={() => run(card, choice)}
              >
                {text}
              </button>
            );
          })}
        </div>
      ))}
      {(action.done || action.error) && (
        <p className={action.error ? 'error-text' : 'muted small'} role="status">
          {action.error ?? action.done}
        </p>
      )}
    </div>
  );
}
