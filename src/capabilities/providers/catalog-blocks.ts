/**
 * The blocks of the catalog file that configure providers rather than models: `upstreams` (the
 * OpenAI-compatible servers, each a provider of its own) and `falEndpoints` (fal endpoints' input
 * shapes). The registry reads them before the catalog's models are checked against its providers;
 * the catalog's own schema accepts the same blocks (src/capabilities/catalog/catalog.ts).
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

/** What a catalog model asks of one of its routes (its modes and masks). */
export interface RouteAsk {
  modelId: string;
  provider: string;
  upstreamModel: string;
  modes: readonly string[];
  masks: boolean;
}

/**
 * Routes that ask more than their upstream's declared block offers: edits or masks of an
 * OpenAI-compatible server without them, fusion on a fal endpoint that takes one image, any
 * reference on one that takes none. One sentence each, naming the fix.
 */
export function routeProblems(
  routes: readonly RouteAsk[],
  upstreams: Record<string, CompatibleUpstream> = {},
  endpoints: Record<string, FalEndpoint> = {},
): string[] {
  return routes.flatMap((route) => {
    const who = `model ${route.modelId} (${route.provider} ${route.upstreamModel})`;
    const edits = route.modes.some((mode) => mode !== 'text');
    const upstream = upstreams[route.provider];
    if (upstream) {
      if (edits && !upstream.edits)
        return [
          `${who}: upstream ${route.provider} offers no edits; remove "edit" and "fusion" or set its "edits": true`,
        ];
      if (route.masks && !upstream.masks)
        return [
          `${who}: upstream ${route.provider} takes no masks; set the model's "masks": false or the upstream's "masks": true`,
        ];
    }
    const shape = route.provider === 'fal' ? endpoints[route.upstreamModel] : undefined;
    if (route.provider === 'fal' && edits && (shape?.references ?? 'none') === 'none')
      return [
        `${who}: the endpoint takes no reference image; set its falEndpoints "references" or remove "edit" and "fusion"`,
      ];
    if (shape?.references === 'image_url' && route.modes.includes('fusion'))
      return [`${who}: the endpoint takes one reference image; remove "fusion"`];
    return [];
  });
}
