import { type ReactNode, useId } from 'react';
import { CopyButton } from './copy-button';

/** A new API key, shown once: selectable on focus, with a copy button, then `children` (a note). */
export function KeyReveal({
  label,
  apiKey,
  children,
}: {
  label: ReactNode;
  apiKey: string;
  children?: ReactNode;
}) {
  const id = useId();
  return (
    <div className="key-reveal stack" role="status">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <div className="row">
        <input
          id={id}
          className="mono grow"
          readOnly
          value={apiKey}
          onFocus={(event) => event.target.select()}
        />
        <CopyButton text={apiKey} label="Copy key" />
      </div>
      {children}
    </div>
  );
}
