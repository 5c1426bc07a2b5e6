import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ADMIN_TAG,
  adminAccountParamsSchema,
  adminPasswordBodySchema,
  adminPasswordResetSchema,
  adminSecurity,
} from '../../base/contract/admin.js';
import { generateOneTimePassword } from '../../capabilities/accounts/index.js';
import { REDACTED } from '../../capabilities/audit/index.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import { requireEntry } from './account-answers.js';
import { ADMIN_WRITE_ERRORS, type AdminDeps } from './admin-deps.js';
import { audited } from './audit-trail.js';

/** POST /accounts/:id/password: an operator's reset of an account's password. */
export async function adminAccountPasswordRoutes(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/accounts/:id/password',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Reset the password',
        description:
          "Sets the password given, or generates one and answers it this once. Every session of the account ends; at its next website sign-in the session can do nothing but set the person's own password (every other route answers 403 password_change_required until then). API keys are not affected.",
        params: adminAccountParamsSchema,
        body: adminPasswordBodySchema,
        response: {
          200: jsonResponse('The password was reset', adminPasswordResetSchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'not_found']),
        },
      },
    },
    async (request) => {
      const { id } = request.params;
      const before = await requireEntry(deps, id);
      const given = request.body?.password;
      const password = given ?? generateOneTimePassword();
      await deps.accounts.resetPassword(id, password);
      await audited(deps, request, {
        action: 'password.reset',
        target: { type: 'account', id },
        before: { password_change_required: before.passwordChangeRequired },
        after: { password: REDACTED, generated: given === undefined, password_change_required: true },
      });
      return { password: given === undefined ? password : null };
    },
  );
}
