/** Median and spread of repeated measurements: what every row of the table reports. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  samples: number[];
}

/** The median (mean of the middle two for an even count) with the min–max of the samples. */
export function spreadOf(samples: number[]): Spread {
  if (samples.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, samples };
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1
      ? (sorted[mid] as number)
      : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { median, min: sorted[0] as number, max: sorted[sorted.length - 1] as number, samples };
}

/** The nearest-rank percentile `p` (0–100) of `values`. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** `0.42 (0.39–0.45)`: a median with its spread, at `digits` decimals. */
export function formatSpread(s: Spread, digits = 2): string {
  if (Number.isNaN(s.median)) return 'n/a';
  const f = (n: number) => n.toFixed(digits);
  return s.samples.length > 1 && f(s.min) !== f(s.max)
    ? `${f(s.median)} (${f(s.min)}–${f(s.max)})`
    : f(s.median);
}
