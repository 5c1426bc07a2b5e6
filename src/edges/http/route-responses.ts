import { z } from 'zod';
import { errorBodySchema } from '../../base/contract/errors.js';
import { type ErrorType, errorStatus } from './errors.js';

/**
 * The error answers a route declares, grouped by status, each described by the `error.type`
 * values it may carry; `internal_error` (500) is always possible. Both the document and the
 * serializer of those statuses come from here.
 */
export function errorResponses(types: readonly ErrorType[]) {
  const byStatus = new Map<number, ErrorType[]>();
  for (const type of [...types, 'internal_error' as const]) {
    const status = errorStatus[type];
    const listed = byStatus.get(status) ?? [];
    if (!listed.includes(type)) byStatus.set(status, [...listed, type]);
  }
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, listed]) => [
        status,
        {
          description: `error.type: ${listed.join(', ')}`,
          content: { 'application/json': { schema: errorBodySchema } },
        },
      ]),
  );
}

/**
 * What every authenticated route may answer besides its own errors; `password_change_required`
 * (403) is a website session's until its person replaces a password an operator set.
 */
export const AUTH_ERRORS = [
  'unauthorized',
  'invalid_api_key',
  'password_change_required',
] as const satisfies readonly ErrorType[];

/**
 * What every authenticated route that creates, changes or spends may answer besides its own
 * errors: also a read-only key's refusal (403 insufficient_scope, see http/key-scopes.ts).
 */
export const WRITE_AUTH_ERRORS = [
  ...AUTH_ERRORS,
  'insufficient_scope',
] as const satisfies readonly ErrorType[];

/** A JSON answer with its description (the document's response description). */
export const jsonResponse = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  content: { 'application/json': { schema } },
});

/** An answer without a body (204, a redirect), with its description. */
export const noContent = (description: string) => z.null().describe(description);
