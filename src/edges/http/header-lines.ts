import type { FastifyRequest } from 'fastify';

/**
 * How many lines of header `name` (lower case) the request carried. Node keeps only the first of
 * some headers (`Authorization`) and joins others with ", " (`Idempotency-Key`), so a refusal of
 * a repeated header must count the raw lines.
 */
export function headerLineCount(request: FastifyRequest, name: string): number {
  const raw = request.raw.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]?.toLowerCase() === name) count++;
  return count;
}
