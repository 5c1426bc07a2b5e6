import type { FastifyRequest } from 'fastify';
import type { AuditActor, AuditChange } from '../../capabilities/audit/index.js';
import { providerKeyState } from '../../capabilities/audit/index.js';
import { accountOf } from '../http/authentication.js';
import type { AdminDeps } from './admin-deps.js';

/**
 * Who made the change a request carries: the operator (its e-mail and id), from the admin API when
 * it came with an API key, from the console when it came with the website's session.
 */
export function actorOf(request: FastifyRequest): AuditActor {
  const account = accountOf(request);
  return {
    label: account.email,
    accountId: account.id,
    source: request.headers.authorization === undefined ? 'website' : 'admin-api',
    requestId: request.id,
  };
}

/**
 * Records a change the request made, right after it was committed (the services that make the
 * changes keep their own transactions): the audit log is append-only, so a change that failed is
 * never recorded.
 */
export async function audited(deps: AdminDeps, request: FastifyRequest, change: AuditChange): Promise<void> {
  await deps.audit.record(actorOf(request), change);
}

/** An upstream pool key's state (never its secret); null when there is no such key. */
export async function providerKeyNow(deps: AdminDeps, provider: string, name: string) {
  const found = (await deps.providerKeys.store.list(provider)).find((key) => key.name === name);
  return found ? providerKeyState(found) : null;
}
