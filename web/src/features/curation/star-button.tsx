import { useState } from 'react';
import { messageOf } from '../../lib/api';
import { setStar } from './curation';
import { useRegisterStar } from './star-channel';
import { StarIcon } from './star-icon';

/**
 * A work's star: pressed when starred; the change is sent at once and undone if it fails. In the
 * lightbox, its S key presses it (the star channel).
 */
export function StarButton({
  workId,
  starred,
  onChange,
  withText = false,
}: {
  workId: string;
  starred: boolean;
  onChange: (starred: boolean) => void;
  withText?: boolean;
}) {
  const [error, setError] = useState<string>();
  const toggle = async () => {
    const next = !starred;
    onChange(next);
    try {
      await setStar(workId, next);
      setError(undefined);
    } catch (failure) {
      onChange(!next);
      setError(messageOf(failure));
    }
  };
  useRegisterStar(() => void toggle());
  return (
    <button
      type="button"
      className={`${withText ? 'button small' : 'icon-button'} star-button${starred ? ' starred' : ''}`}
      aria-pressed={starred}
      aria-label={withText ? undefined : 'Star'}
      title={error ?? (starred ? 'Starred: press to remove the star' : 'Star')}
      onClick={toggle}
    >
      <StarIcon filled={starred} />
      {withText && (starred ? 'Starred' : 'Star')}
    </button>
  );
}
