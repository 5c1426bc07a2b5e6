import { z } from 'zod';

/**
 * The wording of a constraint a schema states without its own message: a predicate the caller
 * reads after the field's name ("id must be at most 200 characters"), never the validator's own
 * text ("Too big: expected string to have <=200 characters"). Installed once for every Zod schema
 * (`z.config`), so a constraint added to the contract later is worded the same way; a schema's own
 * message still wins.
 */
type Issue = Parameters<NonNullable<ReturnType<typeof z.config>['customError']>>[0];

const noun: Record<string, [string, string]> = {
  string: ['character', 'characters'],
  array: ['item', 'items'],
  set: ['item', 'items'],
  file: ['byte', 'bytes'],
};

function bound(limit: number | bigint, origin: string, inclusive: boolean, upper: boolean): string {
  const unit = noun[origin];
  if (unit) {
    const count = Number(limit) + (inclusive ? 0 : upper ? -1 : 1);
    return `${upper ? 'at most' : 'at least'} ${count} ${count === 1 ? unit[0] : unit[1]}`;
  }
  if (inclusive) return `${upper ? 'at most' : 'at least'} ${limit}`;
  return `${upper ? 'less than' : 'greater than'} ${limit}`;
}

const typeNames: Record<string, string> = {
  int: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
  record: 'an object',
  null: 'null',
  date: 'a date',
};

const formatNames: Record<string, string> = {
  email: 'an email address',
  url: 'an absolute URL',
  date: 'a date (YYYY-MM-DD)',
  datetime: 'a date-time (ISO 8601)',
  uuid: 'a UUID',
};

/** The predicate for an issue, or undefined to keep Zod's own wording. */
export function issuePredicate(issue: Issue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${typeNames[issue.expected] ?? issue.expected}`;
    case 'too_big':
      return `must be ${bound(issue.maximum, issue.origin, issue.inclusive !== false, true)}`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1 && issue.inclusive !== false)
        return 'must not be empty';
      return `must be ${bound(issue.minimum, issue.origin, issue.inclusive !== false, false)}`;
    case 'invalid_value':
      return `must be ${issue.values.length === 1 ? JSON.stringify(issue.values[0]) : `one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`}`;
    case 'invalid_format':
      if (issue.format === 'regex') return `must match ${issue.pattern ?? 'its pattern'}`;
      return `must be ${formatNames[issue.format] ?? `a valid ${issue.format}`}`;
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return `has unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')}`;
    case 'invalid_union':
    case 'invalid_key':
    case 'invalid_element':
    case 'custom':
      return 'is invalid';
    default:
      return undefined;
  }
}

z.config({ customError: issuePredicate });
