import { type FormEvent, useEffect, useId, useState } from 'react';
import { useCatalog } from '../../lib/catalog';
import { MODE_LABELS } from '../../lib/format';
import type { SearchState } from './search';

/**
 * Search by prompt text and filter by model, mode and dates. The text applies on Enter (or the
 * Search button); the pickers at once. The page keeps the state in its URL.
 */
export function SearchBar({
  value,
  onChange,
  label,
}: {
  value: SearchState;
  onChange: (next: SearchState) => void;
  label: string;
}) {
  const { catalog } = useCatalog();
  const [text, setText] = useState(value.q);
  const id = useId();
  // Back/forward or a cleared search changes the URL: the field follows it.
  useEffect(() => setText(value.q), [value.q]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    onChange({ ...value, q: text });
  };
  const active = value.q || value.model || value.mode || value.from || value.to;

  return (
    <search className="search-bar" aria-label={label}>
      <form onSubmit={submit}>
        <div className="search-text">
          <label className="visually-hidden" htmlFor={`${id}-q`}>
            Search prompts
          </label>
          <input
            id={`${id}-q`}
            type="search"
            placeholder="Search prompts"
            value={text}
            maxLength={200}
            onChange={(event) => setText(event.target.value)}
          />
          <button type="submit" className="button">
            Search
          </button>
        </div>
        <div className="search-filters">
          <label>
            <span className="field-label">Model</span>
            <select
              aria-label="Model"
              value={value.model}
              onChange={(event) => onChange({ ...value, q: text, model: event.target.value })}
            >
              <option value="">All models</option>
              {catalog?.models.map((model) => (
                <option key={model.id} value={model.id}>
                  {model.name}
                </option>
              ))}
              {value.model && !catalog?.models.some((model) => model.id === value.model) && (
                <option value={value.model}>{value.model}</option>
              )}
            </select>
          </label>
          <label>
            <span className="field-label">Mode</span>
            <select
              aria-label="Mode"
              value={value.mode}
              onChange={(event) => onChange({ ...value, q: text, mode: event.target.value })}
            >
              <option value="">All modes</option>
              {Object.entries(MODE_LABELS)
                .filter(
                  ([mode]) =>
                    mode === value.mode || catalog?.models.some((m) => (m.modes as string[]).includes(mode)),
                )
                .map(([mode, name]) => (
                  <option key={mode} value={mode}>
                    {name}
                  </option>
                ))}
            </select>
          </label>
          <label>
            <span className="field-label">From</span>
            <input
              type="date"
              aria-label="From"
              value={value.from}
              max={value.to || undefined}
              onChange={(event) => onChange({ ...value, q: text, from: event.target.value })}
            />
          </label>
          <label>
            <span className="field-label">To</span>
            <input
              type="date"
              aria-label="To"
              value={value.to}
              min={value.from || undefined}
              onChange={(event) => onChange({ ...value, q: text, to: event.target.value })}
            />
          </label>
          {active && (
            <button
              type="button"
              className="button small ghost"
              onClick={() => onChange({ q: '', model: '', mode: '', from: '', to: '' })}
            >
              Clear search
            </button>
          )}
        </div>
      </form>
    </search>
  );
}
