import { useId } from 'react';
import { FormOutcome, PasswordField } from '../../ui/form-fields';

/**
 * The end of a dialog's form that asks for the password again: the password, the error if any,
 * and Cancel beside the submit button (`tone` "danger" for a destructive one).
 */
export function PasswordConfirm({
  password,
  onPassword,
  error,
  busy,
  submitLabel,
  tone,
  onCancel,
}: {
  password: string;
  onPassword: (password: string) => void;
  error: string | undefined;
  busy: boolean;
  submitLabel: string;
  tone: 'primary' | 'danger';
  onCancel: () => void;
}) {
  const passwordId = useId();
  return (
    <>
      <PasswordField
        id={passwordId}
        label="Your password"
        value={password}
        onChange={onPassword}
        autoComplete="current-password"
      />
      <FormOutcome error={error} />
      <div className="row end">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className={`button ${tone}`} disabled={busy}>
          {busy ? 'Working…' : submitLabel}
        </button>
      </div>
    </>
  );
}
