/**
 * Money in Atelier is an integer number of micro-units of one currency, US dollars: 1 USD =
 * 1,000,000 micros, so $0.067 is 67,000. Integers add up exactly in the store and across nodes;
 * one currency because every shipped upstream bills in dollars.
 */
export const CURRENCY = 'USD';
export const MICROS_PER_UNIT = 1_000_000;

/** Micros as dollars for people: "$0.067", "$12.50" (at least two decimals, at most six). */
export function formatUsd(amountMicros: number): string {
  const sign = amountMicros < 0 ? '-' : '';
  const abs = Math.abs(amountMicros);
  const whole = Math.floor(abs / MICROS_PER_UNIT);
  const fraction = String(abs % MICROS_PER_UNIT)
    .padStart(6, '0')
    .replace(/0+$/, '')
    .padEnd(2, '0');
  return `${sign}$${whole}.${fraction}`;
}

/** Dollars as written by a person ("12.5", "0.067", "3") → micros; undefined when not a plain amount. */
export function parseUsd(text: string): number | undefined {
  const match = /^\s*\$?(\d{1,9})(?:\.(\d{1,6}))?\s*$/.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * MICROS_PER_UNIT + Number((match[2] ?? '').padEnd(6, '0'));
}
