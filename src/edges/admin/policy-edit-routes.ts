import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ADMIN_TAG, adminSecurity } from '../../base/contract/admin.js';
import {
  patchTierPolicySchema,
  policyVersionSchema,
  policyVersionsQuerySchema,
  policyVersionsSchema,
  replacePoliciesSchema,
  tierParamsSchema,
} from '../../base/contract/admin-policies.js';
import { tierPolicyState } from '../../capabilities/audit/index.js';
import type { PolicyAuthor, PolicyVersion } from '../../capabilities/usage/index.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import type { ZodApp } from '../http/zod-app.js';
import { ADMIN_AUTH_ERRORS, ADMIN_WRITE_ERRORS, type AdminDeps } from './admin-deps.js';
import { actorOf, audited } from './audit-trail.js';

/** Which version is in force, who wrote it and when (GET /policies `in_force`). */
export const versionHead = (version: PolicyVersion) => ({
  version: version.version,
  source: version.source,
  created_at: version.createdAt,
  created_by: version.createdBy,
  file_sha256: version.fileSha256,
});

const versionWire = (version: PolicyVersion) => ({ ...versionHead(version), tiers: version.tiers });

/** The operator making an edit, and whether through the admin API or the console. */
function authorOf(request: FastifyRequest): PolicyAuthor {
  const actor = actorOf(request);
  return { label: actor.label, source: actor.source === 'website' ? 'console' : 'api' };
}

const VALIDATION =
  'Validated as ATELIER_POLICY_FILE is at a start, against the catalog’s model ids: a refusal is 400 invalid_request naming every problem. The change is in force on this node at once and on every node within ATELIER_CONFIG_REFRESH_MS, and recorded in the audit log with the state before and after.';

/** PUT /policies, PATCH /policies/tiers/:tier, GET /policies/versions: the tier policies edited at run time. */
export async function adminPolicyEditRoutes(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  replacePolicies(api, deps);
  patchTier(api, deps);
  listVersions(api, deps);
}

/** PUT /policies: the whole document, as a new version. */
function replacePolicies(api: ZodApp, deps: AdminDeps) {
  api.put(
    '/policies',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Replace the tier policy document',
        description: `The document as ATELIER_POLICY_FILE holds it ({"tiers": {…}}), with expected_version: the version it replaces (409 conflict when another is in force). ${VALIDATION}`,
        body: replacePoliciesSchema,
        response: {
          200: jsonResponse('The version written, now in force', policyVersionSchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'conflict']),
        },
      },
    },
    async (request) => {
      const { expected_version, ...document } = request.body;
      const { before, after } = await deps.policies.replace(document, expected_version, authorOf(request));
      await audited(deps, request, {
        action: 'policy.replace',
        target: { type: 'tier-policy', id: 'tiers' },
        before: before ? tierPolicyState(before) : null,
        after: tierPolicyState(after),
      });
      return versionWire(after);
    },
  );
}

/** PATCH /policies/tiers/:tier: one tier's limits, as a new version. */
function patchTier(api: ZodApp, deps: AdminDeps) {
  api.patch(
    '/policies/tiers/:tier',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Change one tier’s limits',
        description: `A value sets the field, null removes it (no limit), an absent field stays; a tier left with no field has no policy (unrestricted). With expected_version, the change is made only on that version (else 409 conflict); without, on the version in force. ${VALIDATION}`,
        params: tierParamsSchema,
        body: patchTierPolicySchema,
        response: {
          200: jsonResponse('The version written, now in force', policyVersionSchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'conflict']),
        },
      },
    },
    async (request) => {
      const { tier } = request.params;
      const { expected_version, ...patch } = request.body;
      const { before, after } = await deps.policies.setTier(tier, patch, expected_version, authorOf(request));
      await audited(deps, request, {
        action: 'policy.tier.update',
        target: { type: 'tier-policy', id: tier },
        before: before ? tierPolicyState(before, tier) : null,
        after: tierPolicyState(after, tier),
      });
      return versionWire(after);
    },
  );
}

/** GET /policies/versions: the history, newest first. */
function listVersions(api: ZodApp, deps: AdminDeps) {
  api.get(
    '/policies/versions',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'The versions of the tier policies',
        description:
          'Every version kept, newest first (the first is in force): seeded or imported from ATELIER_POLICY_FILE at a start, or written by an edit, with who wrote it and when.',
        querystring: policyVersionsQuerySchema,
        response: {
          200: jsonResponse('The versions', policyVersionsSchema),
          ...errorResponses(['invalid_request', ...ADMIN_AUTH_ERRORS]),
        },
      },
    },
    async (request) => ({ items: (await deps.policies.history(request.query.limit)).map(versionWire) }),
  );
}
