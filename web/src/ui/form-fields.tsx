import { type ReactNode, useId } from 'react';

/** A labelled password input: the one shape of every password the website asks for. */
export function PasswordField({
  id,
  label,
  value,
  onChange,
  autoComplete,
  minLength,
  className = 'field',
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  autoComplete: 'current-password' | 'new-password';
  minLength?: number;
  className?: string;
}) {
  return (
    <div className={className}>
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        type="password"
        autoComplete={autoComplete}
        minLength={minLength}
        required
        value={value}
        onChange={(event) => onChange(event.target.value)}
      />
    </div>
  );
}

/** A labelled control (an input, a select): `control` gets the id its label points at. */
export function Field({
  label,
  control,
  className = 'field',
}: {
  label: string;
  control: (id: string) => ReactNode;
  className?: string;
}) {
  const id = useId();
  return (
    <div className={className}>
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      {control(id)}
    </div>
  );
}

/** A form's outcome under its fields: the error as an alert, a success as a status line. */
export function FormOutcome({ error, done }: { error?: string | undefined; done?: string | undefined }) {
  return (
    <>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {done && (
        <p className="success-text" role="status">
          {done}
        </p>
      )}
    </>
  );
}
