import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  accountEraseBodySchema,
  CONFIRM_MISMATCH,
  eraseOutcomeSchema,
  exportZipResponse,
} from '../../base/contract/account-data.js';
import { WEBSITE_TAG, websiteSession } from '../../base/contract/website/shared.js';
import { InvalidInput } from '../../base/domain/errors.js';
import { zipHeaders } from '../../use-cases/downloads/index.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import { type CredentialDeps, confirmPassword, PASSWORD_CHECK_ERRORS } from './credential-routes.js';
import { clearSessionCookie } from './session-auth.js';

/** Who an account holder's own erase is recorded as: no e-mail (the erase removes it). */
const ERASED_HOLDER = 'account holder (erased)';

/** The account page's export and erase of the signed-in account (docs/operations.md, Data lifecycle). */
export async function accountDataRoutes(app: FastifyInstance, deps: CredentialDeps) {
  const { services } = deps;
  app.get(
    '/account/export',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Export the account',
        description:
          "Every result of the account's works and every upload, with metadata.json, as one ZIP streamed as it is written (memory stays flat whatever the account's size). Recorded in the audit log as account.export.",
        security: websiteSession,
        response: { 200: exportZipResponse, ...errorResponses(['unauthorized', 'forbidden']) },
      },
    },
    async (request, reply) => {
      const account = accountOf(request);
      const zip = await services.accountData.export(account.id, services.clock.now());
      await services.accountData.audit(
        { label: account.email, accountId: account.id, requestId: request.id },
        'account.export',
        account.id,
      );
      return (reply as FastifyReply).headers(zipHeaders(zip.name)).send(zip.stream);
    },
  );
  app.withTypeProvider<ZodTypeProvider>().post(
    '/account/erase',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Erase the account',
        description:
          "Erases the signed-in account for good: its keys, sessions, OAuth grants, works, collections, uploads, files (once no other account's row uses them), webhooks and settings; its usage stays only in the deployment's anonymous totals. Needs the account's e-mail typed again (400 otherwise) and its password (403 when wrong, counted as a sign-in). This browser's cookie is cleared. Recorded in the audit log as account.erase, without the e-mail.",
        security: websiteSession,
        body: accountEraseBodySchema,
        response: {
          200: jsonResponse('The erase, done or finishing', eraseOutcomeSchema),
          ...errorResponses(['invalid_request', ...PASSWORD_CHECK_ERRORS]),
        },
      },
    },
    async (request, reply) => {
      const account = accountOf(request);
      const { confirm, password } = request.body;
      if (confirm.trim().toLowerCase() !== account.email.toLowerCase())
        throw new InvalidInput(CONFIRM_MISMATCH, 'confirm');
      await confirmPassword(deps, request, account, password);
      const outcome = await services.accountData.erase(account.id);
      await services.accountData.audit(
        { label: ERASED_HOLDER, accountId: null, requestId: request.id },
        'account.erase',
        account.id,
      );
      clearSessionCookie(request, reply, services.publicBaseUrl);
      return { status: outcome === 'pending' ? ('pending' as const) : ('erased' as const) };
    },
  );
}
