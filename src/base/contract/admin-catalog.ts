/**
 * The wire shapes of the model catalog at run time in the operator console's API
 * (`/api/admin/v1/catalog`): the document in force with its version, whole-document and narrow
 * edits (each a new version, refused with 409 when made on an older one), its history, and the test
 * of one route. The document's own shape is the catalog file's (docs/providers.md): an edit is
 * checked by the loader of the file, whose messages a refusal carries.
 */
import { z } from 'zod';
import { integerQuery } from './paging.js';

export const CATALOG_VERSION_SOURCES = ['file', 'console', 'api', 'cli'] as const;

const jsonObject = z.record(z.string(), z.unknown());
const expectedVersion = z
  .number({ error: 'must be a number' })
  .int('must be a whole number')
  .min(0, 'must be at least 0')
  .describe(
    'The version the change was made on (the `version` last read): 409 `conflict` when another came since',
  );

const versionFields = {
  version: z.number().int().describe('1, 2, …: the highest is in force on every node'),
  source: z
    .enum(CATALOG_VERSION_SOURCES)
    .describe('Where it came from: the catalog file at a start, the console, the admin API, the CLI'),
  created_at: z.number().int().describe('When it was stored, epoch milliseconds'),
  created_by: z.string().describe('The operator (e-mail), or file:<the file> for a start that read it'),
  file_sha256: z
    .string()
    .nullable()
    .describe("For a version read from a file, the sha256 of the file's bytes"),
};

export const adminCatalogVersionSchema = z.object(versionFields).meta({ id: 'AdminCatalogVersion' });

export const adminCatalogSchema = z
  .object({
    ...versionFields,
    document: jsonObject.describe('The catalog document, in the catalog file’s shape'),
  })
  .meta({ id: 'AdminCatalog' });

export const adminCatalogVersionsSchema = z
  .object({ items: z.array(adminCatalogVersionSchema).describe('Newest first') })
  .meta({ id: 'AdminCatalogVersions' });

export const adminCatalogVersionsQuerySchema = z.object({
  limit: integerQuery({ fallback: 50, min: 1, max: 200 }).describe('How many, newest first; default 50'),
});

export const adminCatalogVersionParamsSchema = z.object({
  version: z.coerce
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .describe('The version'),
});

export const adminPutCatalogSchema = z.object({
  expected_version: expectedVersion,
  document: jsonObject.describe('The whole new document, in the catalog file’s shape'),
});

export const adminModelParamsSchema = z.object({
  id: z.string().min(1).max(64).describe('The model id (not an alias)'),
});

/** A route's settings as JSON, checked by the catalog's loader; null removes the setting. */
const setting = (what: string) => jsonObject.nullable().optional().describe(what);

export const adminPatchModelSchema = z.object({
  expected_version: expectedVersion,
  price: setting("The model's own route's price (the catalog's price shape); null removes it"),
  capacity: setting(
    "The model's own route's capacity limits per key: maxInFlight, requestsPerMinute, imagesPerMinute; null removes them (learned from refusals)",
  ),
  lifecycle: setting("The own route's lifecycle: released, deprecated, shutdown, replacement, source"),
  fallbacks: z
    .array(jsonObject)
    .max(4)
    .optional()
    .describe(
      'The whole list of fallback routes, in the order they are tried (each: provider, upstreamModel, and its own price, capacity, lifecycle)',
    ),
});

export const adminRouteTestBodySchema = z.object({
  route_id: z
    .string()
    .min(3)
    .max(300)
    .describe(
      'The route to test, as <provider>/<upstream model> (every route of the catalog in force has one)',
    ),
});

export const adminRouteTestSchema = z
  .object({
    route_id: z.string(),
    model: z.string().describe('The model whose route was tested (its first one naming the route)'),
    ok: z.boolean().describe('true when the upstream answered an image'),
    duration_ms: z.number().int(),
    image: z
      .object({
        content_type: z.string().nullable(),
        width: z.number().int().nullable(),
        height: z.number().int().nullable(),
        bytes: z.number().int().nullable(),
        preview_url: z
          .string()
          .nullable()
          .describe('A data: URL of the image (when at most 2 MB), or the URL the upstream answered'),
      })
      .nullable(),
    error: z
      .object({ cause: z.string().nullable(), message: z.string() })
      .nullable()
      .describe("The upstream's refusal or failure, as the engine would record it"),
    cost_usd: z
      .number()
      .nullable()
      .describe('What the request cost by the route’s price (null when it has none, or it failed)'),
    request: z
      .object({ prompt: z.string(), size: z.string(), aspect: z.string() })
      .describe('What was sent: a short fixed prompt, the smallest size, one image'),
  })
  .meta({ id: 'AdminRouteTest' });

export type AdminCatalogWire = z.output<typeof adminCatalogSchema>;
export type AdminCatalogVersionWire = z.output<typeof adminCatalogVersionSchema>;
export type AdminRouteTestWire = z.output<typeof adminRouteTestSchema>;
