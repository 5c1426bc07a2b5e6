import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';

type Validate = ReturnType<FastifySchemaCompiler<unknown>>;
type Checked = { value: Record<string, unknown> };

/** A query string with no parameter at all (Fastify's parsed object may have no prototype). */
function isEmpty(data: unknown): boolean {
  if (typeof data !== 'object' || data === null) return false;
  for (const _ in data) return false;
  return true;
}

/** An answer that a shallow copy reproduces exactly: an object of primitives (no shared array or object). */
function isFlatValue(result: unknown): result is Checked {
  if (typeof result !== 'object' || result === null || !('value' in result) || 'error' in result)
    return false;
  const { value } = result as { value: unknown };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.values(value).every((field) => field === null || typeof field !== 'object');
}

/**
 * The routes' validator: the Zod schemas through fastify-type-provider-zod, except that a request
 * with no query string at all (a plain poll, a first page) gets the answer its route's query schema
 * gave the first such request, copied, instead of a fresh parse. The schemas are pure (defaults are
 * constants), so the answer is the same every time; the parse it saves ran Zod's refine/transform
 * chain of each optional parameter on every poll, and on this runtime that parse left part of each
 * request's objects alive into the next young-generation collection: about 1.3 % of everything a
 * poll allocates was promoted, and the scavenges that copy it were 5× longer (docs/benchmarks.md,
 * "Polls p99"). Only a flat answer (numbers, strings, booleans) is reused, so no request can change
 * another's; a refusal is never reused (Fastify decorates the error it gets).
 */
export const routeValidatorCompiler: FastifySchemaCompiler<unknown> = (route) => {
  const validate = validatorCompiler(route as Parameters<typeof validatorCompiler>[0]) as Validate;
  if (route.httpPart !== 'querystring') return validate;
  let empty: Checked | undefined;
  return (data) => {
    if (!isEmpty(data)) return validate(data);
    if (empty !== undefined) return { value: { ...empty.value } };
    const result = validate(data);
    if (isFlatValue(result)) empty = { value: { ...result.value } };
    return result;
  };
};
