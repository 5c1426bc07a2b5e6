/** What an audit event changed: the fields its before and after states differ in, as people read them. */
import type { AuditEventWire } from '../../../../src/base/contract/admin-audit.js';
import { formatUsd } from '../../lib/vocabulary.js';
import { instant } from './log-format.js';

type State = AuditEventWire['before'];

/** One field a change touched: its value before and after (undefined: the field was not there). */
export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

/** A state's fields, nested objects flattened to dotted names ("budget.daily_micros"). */
function flatten(state: State, prefix = ''): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  for (const [name, value] of Object.entries(state ?? {})) {
    const path = `${prefix}${name}`;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [inner, v] of flatten(value as Record<string, unknown>, `${path}.`)) fields.set(inner, v);
    } else fields.set(path, value);
  }
  return fields;
}

/**
 * The fields a change touched: every field of a creation (no state before) or of a removal (none
 * after), otherwise only those whose value differs, in the order the states list them.
 */
export function changedFields(before: State, after: State): FieldChange[] {
  const was = flatten(before);
  const is = flatten(after);
  const names = [...new Set([...was.keys(), ...is.keys()])];
  return names
    .filter((name) => JSON.stringify(was.get(name)) !== JSON.stringify(is.get(name)))
    .map((name) => ({ field: name, before: was.get(name), after: is.get(name) }));
}

/** A value as people read it: money in dollars, instants as dates, none as a dash. */
export function valueText(field: string, value: unknown): string {
  if (value === undefined || value === null) return '—';
  if (typeof value === 'number' && field.endsWith('_micros')) return formatUsd(value);
  if (typeof value === 'number' && field.endsWith('_at')) return instant(value);
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}
