import { Link } from '../../lib/router';
import { Field } from '../../ui/form-fields';
import { isoOfLocal, localOfIso } from './log-format';

/** A text filter's field. */
export function TextFilter({
  label,
  value,
  onChange,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <Field
      label={label}
      control={(id) => (
        <input id={id} type="search" value={value} onChange={(event) => onChange(event.target.value)} />
      )}
    />
  );
}

/** A time filter's field: the reader's local time, kept as an ISO instant. */
export function TimeFilter({
  label,
  value,
  onChange,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <Field
      label={label}
      control={(id) => (
        <input
          id={id}
          type="datetime-local"
          value={localOfIso(value)}
          onChange={(event) => onChange(isoOfLocal(event.target.value))}
        />
      )}
    />
  );
}

/** A filter form's buttons: Filter (submits) and Clear (the listing without filters). */
export function FilterButtons({ clearHref }: { clearHref: string }) {
  return (
    <div className="row">
      <button type="submit" className="button primary">
        Filter
      </button>
      <Link className="button" href={clearHref}>
        Clear
      </Link>
    </div>
  );
}

/** A choice among a closed set, or Any (''): `labels` maps each value to the words shown for it. */
export function SelectFilter({
  label,
  value,
  labels,
  onChange,
}: {
  label: string;
  value: string;
  labels: Readonly<Record<string, string>>;
  onChange: (value: string) => void;
}) {
  return (
    <Field
      label={label}
      control={(id) => (
        <select id={id} value={value} onChange={(event) => onChange(event.target.value)}>
          <option value="">Any</option>
          {Object.entries(labels).map(([option, words]) => (
            <option key={option} value={option}>
              {words}
            </option>
          ))}
        </select>
      )}
    />
  );
}
