/**
 * The blocks of the catalog file that configure providers rather than models: `upstreams` (the
 * OpenAI-compatible servers, each a provider of its own) and `falEndpoints` (fal endpoints' input
 * shapes). The registry reads them before the catalog's models are checked against its providers;
 * the catalog's own schema accepts the same blocks (src/catalog/catalog.ts).
 */
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { type FalEndpoint, falEndpointsSchema } from './fal-inputs.js';
import { type CompatibleUpstream, compatibleUpstreamsSchema } from './openai-compatible-provider.js';

/**
 * The block `key` of the catalog file at `path`, parsed by `schema`; none without a file. A file that
 * cannot be read or parsed yields none here: loading the catalog itself reports that.
 */
function catalogBlock<T>(path: string | undefined, key: string, schema: z.ZodType<T>): T | undefined {
  if (!path) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
  const block =
    typeof json === 'object' && json !== null ? (json as Record<string, unknown>)[key] : undefined;
  if (block === undefined) return undefined;
  const parsed = schema.safeParse(block);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${key}.${issue.path.join('.')}: ${issue.message}`);
  throw new Error(`ATELIER_CATALOG (${path}) is invalid:\n  ${problems.join('\n  ')}`);
}

export const readCompatibleUpstreams = (path: string | undefined): Record<string, CompatibleUpstream> =>
  catalogBlock(path, 'upstreams', compatibleUpstreamsSchema) ?? {};

export const readFalEndpoints = (path: string | undefined): Record<string, FalEndpoint> =>
  catalogBlock(path, 'falEndpoints', falEndpointsSchema) ?? {};
