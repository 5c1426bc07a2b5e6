import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ADMIN_TAG, adminSecurity } from '../../base/contract/admin.js';
import {
  adminCatalogSchema,
  adminCatalogVersionParamsSchema,
  adminCatalogVersionsQuerySchema,
  adminCatalogVersionsSchema,
  adminModelParamsSchema,
  adminPatchModelSchema,
  adminPutCatalogSchema,
} from '../../base/contract/admin-catalog.js';
import { Conflict, NotFound } from '../../base/domain/errors.js';
import type { DocumentVersion } from '../../infra/store/versioned-documents.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import type { ZodApp } from '../http/zod-app.js';
import { ADMIN_AUTH_ERRORS, ADMIN_WRITE_ERRORS, type AdminDeps } from './admin-deps.js';
import { audited } from './audit-trail.js';
import { modelEdited } from './catalog-edits.js';
import { adminRouteTestRoutes } from './catalog-test-routes.js';

const IN_FORCE =
  'The highest version is in force on every node: the node that stored it at once, the others within ATELIER_CONFIG_REFRESH_MS (default 2 s), without a restart. Validated as the catalog file is at a start (400 `invalid_request` with the same messages). `upstreams` and `falEndpoints` define providers and change only with the file.';

const versionAnswer = (version: DocumentVersion) => ({
  version: version.version,
  source: version.source,
  created_at: version.createdAt,
  created_by: version.createdBy,
  file_sha256: version.fileSha256,
});

const catalogAnswer = (version: DocumentVersion) => ({
  ...versionAnswer(version),
  document: version.document as Record<string, unknown>,
});

/** Where an edit came from: the console (a website session) or the admin API (a key). */
const sourceOf = (request: FastifyRequest) =>
  request.headers.authorization === undefined ? ('console' as const) : ('api' as const);

/** The catalog at run time: read it, replace it, edit one model, its history, test a route. */
export async function adminCatalogRoutes(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  readCatalog(api, deps);
  replaceCatalog(api, deps);
  editModel(api, deps);
  listVersions(api, deps);
  await app.register(adminRouteTestRoutes, { deps });
}

/** GET /catalog: the document in force. */
function readCatalog(api: ZodApp, deps: AdminDeps) {
  api.get(
    '/catalog',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'The catalog in force',
        description: `The catalog document (models, routes, fallbacks, capacity limits, prices, lifecycle) with its version and where it came from. ${IN_FORCE}`,
        response: {
          200: jsonResponse('The catalog in force', adminCatalogSchema),
          ...errorResponses(ADMIN_AUTH_ERRORS),
        },
      },
    },
    () => catalogAnswer(deps.catalog.catalog.inForce),
  );
}

/**
 * The version an edit was made on, as stored (not this node's copy, which may be a refresh behind
 * the node the operator read from); 409 when there is none.
 */
async function baseOf(deps: AdminDeps, expected: number): Promise<DocumentVersion> {
  const base = await deps.catalog.get(expected);
  if (!base) throw new Conflict(`there is no catalog version ${expected}: read the catalog again`);
  return base;
}

/** Stores `document` as the next version after `expected` and records it in the audit log. */
async function stored(
  deps: AdminDeps,
  request: FastifyRequest,
  change: { expected: number; document: unknown; before: unknown; after: (v: DocumentVersion) => unknown },
) {
  const previous = await baseOf(deps, change.expected);
  const version = await deps.catalog.edit({
    expectedVersion: change.expected,
    document: change.document,
    source: sourceOf(request),
    createdBy: accountOf(request).email,
  });
  await audited(deps, request, {
    action: 'catalog.update',
    target: { type: 'catalog', id: 'catalog' },
    before: { version: previous.version, ...(change.before as Record<string, unknown>) },
    after: { version: version.version, ...(change.after(version) as Record<string, unknown>) },
  });
  return catalogAnswer(version);
}

/** PUT /catalog: a whole new document. */
function replaceCatalog(api: ZodApp, deps: AdminDeps) {
  api.put(
    '/catalog',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Replace the catalog',
        description: `Stores the whole document as the next version. ${IN_FORCE}`,
        body: adminPutCatalogSchema,
        response: {
          200: jsonResponse('The new version, in force', adminCatalogSchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'conflict']),
        },
      },
    },
    async (request) =>
      stored(deps, request, {
        expected: request.body.expected_version,
        document: request.body.document,
        before: { document: (await baseOf(deps, request.body.expected_version)).document },
        after: (version) => ({ document: version.document }),
      }),
  );
}

/** PATCH /catalog/models/:id: one model's price, limits, lifecycle or fallback routes. */
function editModel(api: ZodApp, deps: AdminDeps) {
  api.patch(
    '/catalog/models/:id',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: "Change a model's price, limits, lifecycle or fallbacks",
        description: `Absent fields stay; null removes a setting; \`fallbacks\` replaces the list (add a fallback route: send the list with it). The rest of the document is kept as it is. ${IN_FORCE}`,
        params: adminModelParamsSchema,
        body: adminPatchModelSchema,
        response: {
          200: jsonResponse('The new version, in force', adminCatalogSchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'not_found', 'conflict']),
        },
      },
    },
    async (request) => {
      const { expected_version, ...fields } = request.body;
      const base = await baseOf(deps, expected_version);
      const edit = modelEdited(base.document, request.params.id, fields);
      if (!edit)
        throw new NotFound(`no model "${request.params.id}" in the catalog (aliases are not edited)`);
      return stored(deps, request, {
        expected: expected_version,
        document: edit.document,
        before: { model: edit.before },
        after: () => ({ model: edit.after }),
      });
    },
  );
}

/** GET /catalog/versions and /catalog/versions/:version: the history. */
function listVersions(api: ZodApp, deps: AdminDeps) {
  api.get(
    '/catalog/versions',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: "The catalog's versions",
        description:
          'Every version kept, newest first (without their documents): edits, and the catalog file at the starts that found it changed. To roll back, read an older version and PUT its document.',
        querystring: adminCatalogVersionsQuerySchema,
        response: {
          200: jsonResponse('The versions, newest first', adminCatalogVersionsSchema),
          ...errorResponses(['invalid_request', ...ADMIN_AUTH_ERRORS]),
        },
      },
    },
    async (request) => ({
      items: (await deps.catalog.history(request.query.limit)).map(versionAnswer),
    }),
  );
  api.get(
    '/catalog/versions/:version',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'One version of the catalog, with its document',
        params: adminCatalogVersionParamsSchema,
        response: {
          200: jsonResponse('The version', adminCatalogSchema),
          ...errorResponses(['invalid_request', ...ADMIN_AUTH_ERRORS, 'not_found']),
        },
      },
    },
    async (request) => {
      const version = await deps.catalog.get(request.params.version);
      if (!version) throw new NotFound(`no catalog version ${request.params.version}`);
      return catalogAnswer(version);
    },
  );
}
