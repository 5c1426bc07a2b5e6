import { ACTIONS_DESCRIPTION, actionBodySchema, workIdParams } from '../../base/contract/actions.js';
import { GENERATE_ERRORS } from '../../base/contract/generate-errors.js';
import { generateResponseSchema } from '../../base/contract/generations.js';
import type { GenerationsService } from '../../use-cases/generations/index.js';
import { accountOf } from '../http/authentication.js';
import { idempotencyHeadersSchema } from '../http/idempotency-hooks.js';
import { zeroRetentionAsked } from '../http/retention-header.js';
import { errorResponses, jsonResponse, WRITE_AUTH_ERRORS } from '../http/route-responses.js';
import { traceparentOf } from '../http/traceparent.js';
import type { ZodApp } from '../http/zod-app.js';

/** POST /generations/{id}/actions: an action on a picked image, as linked tasks. */
export function registerActionsRoute(app: ZodApp, generations: Pick<GenerationsService, 'act'>) {
  const schema = {
    tags: ['Generation'],
    operationId: 'actOnImage',
    summary: 'Upscale, vary, expand, remove the background of, or reroll an image',
    description: ACTIONS_DESCRIPTION,
    headers: idempotencyHeadersSchema,
    params: workIdParams,
    body: actionBodySchema,
    response: {
      200: jsonResponse('Tasks created', generateResponseSchema),
      ...errorResponses([
        ...GENERATE_ERRORS,
        ...WRITE_AUTH_ERRORS,
        'not_found',
        'idempotency_in_progress',
        'idempotency_mismatch',
      ]),
    },
  };
  app.post('/generations/:id/actions', { schema }, async (request) => {
    const answer = await generations.act(
      accountOf(request),
      request.params.id,
      request.body,
      'api',
      request.idempotencyClaim,
      traceparentOf(request),
      zeroRetentionAsked(request),
    );
    request.log.info({ taskIds: answer.task_ids, action: request.body.action }, 'tasks created');
    return answer;
  });
}
