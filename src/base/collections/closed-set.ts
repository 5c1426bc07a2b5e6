/**
 * Whether `value` is one of `list`'s members: the check that narrows text from outside (a request,
 * an upstream's answer) to a closed union, so the code after it needs no cast.
 */
export function isOneOf<T extends string>(list: readonly T[], value: unknown): value is T {
  // Widening the list (never the value) is sound: every T is a string.
  return typeof value === 'string' && (list as readonly string[]).includes(value);
}
