/**
 * A Replicate model's input schema: `components.schemas.Input` of the Cog OpenAPI document that
 * `GET /v1/models/{owner}/{name}` (`latest_version.openapi_schema`) or `…/versions/{id}`
 * (`openapi_schema`) returns, with the `$ref`/`allOf` indirections Cog writes (each enum in its own
 * component) resolved into plain fields.
 */
import { isRecord } from './upstream-json.js';

/** What the adapter needs to know of one input. */
export interface InputField {
  type?: string;
  enum?: unknown[];
  format?: string;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
}

export interface ModelInputs {
  fields: Record<string, InputField>;
  required: string[];
}

/** How deep references are followed: Cog's are one level; a cycle must not recurse forever. */
const MAX_REF_DEPTH = 4;
const LOCAL_REF = '#/components/schemas/';

/** Merges a schema node with what its `$ref` and `allOf` point to; the node's own keys win. */
function resolveNode(node: unknown, schemas: Record<string, unknown>, depth = 0): Record<string, unknown> {
  if (!isRecord(node) || depth > MAX_REF_DEPTH) return {};
  let merged: Record<string, unknown> = { ...node };
  const refs: unknown[] = [];
  if (typeof node.$ref === 'string') refs.push(node.$ref);
  if (Array.isArray(node.allOf)) refs.push(...node.allOf);
  for (const ref of refs) {
    const target =
      typeof ref === 'string'
        ? schemas[ref.replace(LOCAL_REF, '')]
        : isRecord(ref) && typeof ref.$ref === 'string'
          ? schemas[ref.$ref.replace(LOCAL_REF, '')]
          : ref;
    merged = { ...resolveNode(target, schemas, depth + 1), ...merged };
  }
  return merged;
}

/** Reads `components.schemas.Input` of a Cog OpenAPI schema; undefined when it has none. */
export function readInputSchema(openapi: unknown): ModelInputs | undefined {
  if (!isRecord(openapi) || !isRecord(openapi.components) || !isRecord(openapi.components.schemas))
    return undefined;
  const schemas = openapi.components.schemas;
  const input = schemas.Input;
  if (!isRecord(input) || !isRecord(input.properties)) return undefined;
  const fields: Record<string, InputField> = {};
  for (const [key, raw] of Object.entries(input.properties)) {
    const node = resolveNode(raw, schemas);
    fields[key] = {
      type: typeof node.type === 'string' ? node.type : undefined,
      enum: Array.isArray(node.enum) ? node.enum : undefined,
      format: typeof node.format === 'string' ? node.format : undefined,
      maxItems: typeof node.maxItems === 'number' ? node.maxItems : undefined,
      minimum: typeof node.minimum === 'number' ? node.minimum : undefined,
      maximum: typeof node.maximum === 'number' ? node.maximum : undefined,
    };
  }
  const required = Array.isArray(input.required)
    ? input.required.filter((r): r is string => typeof r === 'string')
    : [];
  return { fields, required };
}
