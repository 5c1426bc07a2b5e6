import { useId } from 'react';
import { PasswordField } from '../../ui/form-fields';

/** At least this many characters (the server's rule too). */
const MIN_LENGTH = 8;

/** What is wrong with a new password and its repetition, or undefined. */
export function newPasswordProblem(next: string, repeat: string): string | undefined {
  if (next.length < MIN_LENGTH) return `The new password must be at least ${MIN_LENGTH} characters.`;
  if (next !== repeat) return 'The new password and its repetition differ.';
  return undefined;
}

/** The new password, then again: side by side (`paired`) or one under the other. */
export function NewPasswordFields({
  next,
  onNext,
  repeat,
  onRepeat,
  paired = false,
}: {
  next: string;
  onNext: (value: string) => void;
  repeat: string;
  onRepeat: (value: string) => void;
  paired?: boolean;
}) {
  const ids = { next: useId(), repeat: useId() };
  const className = paired ? 'field grow' : 'field';
  const fields = (
    <>
      <PasswordField
        id={ids.next}
        label="New password"
        value={next}
        onChange={onNext}
        autoComplete="new-password"
        minLength={MIN_LENGTH}
        className={className}
      />
      <PasswordField
        id={ids.repeat}
        label="New password again"
        value={repeat}
        onChange={onRepeat}
        autoComplete="new-password"
        className={className}
      />
    </>
  );
  return paired ? <div className="field-pair">{fields}</div> : fields;
}
