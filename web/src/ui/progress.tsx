/** A determinate progress bar with an accessible name and value. */
export function ProgressBar({
  value,
  label,
  failed = false,
}: {
  value: number;
  label: string;
  failed?: boolean;
}) {
  const clamped = Math.max(0, Math.min(100, Math.round(value)));
  return (
    <div
      className={failed ? 'progress failed' : 'progress'}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={clamped}
    >
      <div className="progress-fill" style={{ width: `${clamped}%` }} />
    </div>
  );
}
