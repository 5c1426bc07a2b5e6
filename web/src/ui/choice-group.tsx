import type { ReactNode } from 'react';

export interface Choice {
  value: string;
  label: ReactNode;
  /** Accessible name when the label is not plain text. */
  ariaLabel?: string;
  hint?: string;
}

/** A labelled group of radio buttons drawn as chips: arrow keys move between them, as with any radios. */
export function ChoiceGroup({
  legend,
  name,
  choices,
  value,
  onChange,
}: {
  legend: string;
  name: string;
  choices: Choice[];
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <fieldset className="field choice-group">
      <legend className="field-label">{legend}</legend>
      <div className="chips">
        {choices.map((choice) => (
          <label key={choice.value} className="chip" title={choice.hint}>
            <input
              type="radio"
              name={name}
              value={choice.value}
              checked={choice.value === value}
              onChange={() => onChange(choice.value)}
              aria-label={choice.ariaLabel}
            />
            <span className="chip-face">{choice.label}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
