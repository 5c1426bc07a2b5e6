import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  adminEraseBodySchema,
  CONFIRM_MISMATCH,
  eraseOutcomeSchema,
  exportZipResponse,
} from '../../base/contract/account-data.js';
import { ADMIN_TAG, adminAccountParamsSchema, adminSecurity } from '../../base/contract/admin.js';
import { Conflict, InvalidInput } from '../../base/domain/errors.js';
import { zipHeaders } from '../../use-cases/downloads/index.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import { requireEntry } from './account-answers.js';
import { ADMIN_AUTH_ERRORS, ADMIN_WRITE_ERRORS, type AdminDeps } from './admin-deps.js';
import { audited } from './audit-trail.js';

/** What an operator erasing the account they use is told (409). */
export const ERASE_SELF = 'An operator cannot erase the account they are using; another operator can';

/** GET /accounts/:id/export and POST /accounts/:id/erase (docs/operations.md, Data lifecycle). */
export async function adminAccountDataRoutes(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/accounts/:id/export',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: "Export an account's works and uploads",
        description:
          "Every result of the account's works and every upload, with metadata.json, as one ZIP streamed as it is written (memory stays flat whatever the account's size). Recorded in the audit log as account.export.",
        params: adminAccountParamsSchema,
        response: { 200: exportZipResponse, ...errorResponses([...ADMIN_AUTH_ERRORS, 'not_found']) },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      await requireEntry(deps, id);
      const zip = await deps.accountData.export(id, deps.clock.now());
      await audited(deps, request, {
        action: 'account.export',
        target: { type: 'account', id },
        before: null,
        after: null,
      });
      return (reply as FastifyReply).headers(zipHeaders(zip.name)).send(zip.stream);
    },
  );
  app.withTypeProvider<ZodTypeProvider>().post(
    '/accounts/:id/erase',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Erase an account',
        description:
          "Erases the account for good: its keys, sessions, OAuth grants, works, tasks, collections, uploads, files (once no other account's row uses them), webhooks, upstream keys and settings; its usage stays only in the deployment's anonymous totals (`usage_erased`). The body names the account by its e-mail (400 otherwise). Idempotent: an account already erased is 404. `pending` when a task of it was still running: the lifecycle housekeeping finishes the erase. Recorded in the audit log as account.erase, without the e-mail.",
        params: adminAccountParamsSchema,
        body: adminEraseBodySchema,
        response: {
          200: jsonResponse('The erase, done or finishing', eraseOutcomeSchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'not_found', 'conflict']),
        },
      },
    },
    async (request) => {
      const { id } = request.params;
      const entry = await requireEntry(deps, id);
      if (request.body.confirm.trim().toLowerCase() !== entry.email.toLowerCase())
        throw new InvalidInput(CONFIRM_MISMATCH, 'confirm');
      if (accountOf(request).id === id) throw new Conflict(ERASE_SELF);
      const outcome = await deps.accountData.erase(id);
      const status = outcome === 'pending' ? ('pending' as const) : ('erased' as const);
      await audited(deps, request, {
        action: 'account.erase',
        target: { type: 'account', id },
        before: { tier: entry.tier },
        after: { status },
      });
      return { status };
    },
  );
}
