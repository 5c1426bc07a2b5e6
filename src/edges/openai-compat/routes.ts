import type { FastifyInstance } from 'fastify';
import { requireAccount } from '../http/authentication.js';
import { installErrorBodies } from '../http/error-handler.js';
import { installIdempotency } from '../http/idempotency-hooks.js';
import { chatCompletionRoutes } from './chat-completions-routes.js';
import { editRoutes } from './edit-routes.js';
import { generationRoutes } from './generation-routes.js';
import { ImageAnswers, type OpenAiCompatDeps } from './image-answers.js';
import { imageTaskRoutes } from './image-task-routes.js';
import { modelRoutes } from './model-routes.js';
import { openAiErrorBodies } from './openai-errors.js';
import { responsesRoutes } from './responses-routes.js';

/**
 * The OpenAI Images API (and the Responses API's image tool) beside v1 (registered under `/v1`, before the v1 alias): the same
 * accounts and keys, catalog, generations, storage and history. Every error of these routes,
 * authentication and schema refusals included, leaves in OpenAI's shape (its error bodies,
 * registered for these routes with installErrorBodies and used by the one error handler).
 */
export async function openAiCompatRoutes(parent: FastifyInstance, deps: OpenAiCompatDeps) {
  installErrorBodies(parent, openAiErrorBodies);
  parent.addHook('onRequest', requireAccount(deps.resolvers));
  installIdempotency(parent, { repository: deps.idempotency });

  const answers = new ImageAnswers(deps, parent.prefix);
  // Waits still open when the server closes answer at once (504 with their task ids).
  parent.addHook('preClose', async () => answers.stopAll());

  imageTaskRoutes(parent, deps, answers);
  modelRoutes(parent, deps.catalog);
  generationRoutes(parent, deps, answers);
  chatCompletionRoutes(parent, deps, answers);
  responsesRoutes(parent, deps.responses, answers);
  await parent.register(editRoutes, { deps, answers });
}
