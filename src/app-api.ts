import type { FastifyInstance } from 'fastify';
import type { Core } from './core.js';
import { assetRoutes } from './edges/api/assets-routes.js';
import { curationRoutes } from './edges/api/curation-routes.js';
import { createHistoryTexts, generationRoutes, type HistoryTexts } from './edges/api/generations-routes.js';
import { catalogRoutes } from './edges/api/models-routes.js';
import { taskRoutes } from './edges/api/tasks-routes.js';
import { uploadRoutes } from './edges/api/uploads-routes.js';
import { usageRoutes } from './edges/api/usage-routes.js';
import { userStatusRoutes } from './edges/api/user-status-routes.js';
import { webhookRoutes } from './edges/api/webhooks-routes.js';
import { createGeminiRequests } from './edges/gemini-compat/generate-content.js';
import { geminiCompatRoutes } from './edges/gemini-compat/routes.js';
import { createTurnSignatures } from './edges/gemini-compat/turn-signatures.js';
import { type AccountResolver, bearerKeyResolver, requireAccount } from './edges/http/authentication.js';
import { type ConnectionCaps, createConnectionCaps } from './edges/http/connection-caps.js';
import { installIdempotency } from './edges/http/idempotency-hooks.js';
import { createImageRequests } from './edges/openai-compat/image-requests.js';
import { createImageStreams } from './edges/openai-compat/image-stream.js';
import { createResponseRequests } from './edges/openai-compat/responses-requests.js';
import { openAiCompatRoutes } from './edges/openai-compat/routes.js';

/** What the OpenAI-compatible routes need from the core. */
function openAiCompatDeps(core: Core, resolvers: AccountResolver[]) {
  const images = createImageRequests({
    catalog: core.catalog,
    generations: core.generations,
    tasks: core.taskService,
    feed: core.taskEvents,
    blobs: core.blobs,
    clock: core.clock,
    waitMs: core.config.openAiWaitMs,
    blobKeyOfUrl: core.publicUrls.keyOf,
    delivered: core.lifecycle.zeroRetention.delivered,
  });
  const streams = createImageStreams({
    images,
    feed: core.taskEvents,
    tasks: core.taskService,
    blobs: core.blobs,
    clock: core.clock,
    waitMs: core.config.openAiWaitMs,
  });
  const responses = createResponseRequests({
    ...{ catalog: core.catalog, images, uploads: core.uploads, responses: core.responses },
    ...{
      tasks: core.taskService,
      feed: core.taskEvents,
      blobs: core.blobs,
      waitMs: core.config.openAiWaitMs,
    },
  });
  return {
    catalog: core.catalog,
    images,
    streams,
    responses,
    uploads: core.uploads,
    idempotency: core.idempotency,
    resolvers,
    stateIdKey: core.stateIdKey,
    chat: { assets: core.assets, blobKeyOfUrl: core.publicUrls.keyOf, waitMs: core.config.openAiWaitMs },
  };
}

/** What the Gemini-native route needs from the core. */
function geminiCompatDeps(core: Core, resolvers: AccountResolver[]) {
  const requests = createGeminiRequests({
    catalog: core.catalog,
    generations: core.generations,
    uploads: core.uploads,
    tasks: core.taskService,
    feed: core.taskEvents,
    blobs: core.blobs,
    waitMs: core.config.openAiWaitMs,
    blobKeyOfUrl: core.publicUrls.keyOf,
    delivered: core.lifecycle.zeroRetention.delivered,
    signatures: createTurnSignatures(core.stateIdKey),
    assets: core.assets,
  });
  return {
    catalog: core.catalog,
    requests,
    idempotency: core.idempotency,
    resolvers,
    bodyDeadlineMs: core.config.requestTimeouts.uploadDeadlineMs,
  };
}

/**
 * The /api/v1 surface: every route behind authentication (bearer key, or the website's session).
 * The `/v1` alias serves the same routes, hidden from the document (one operation per route).
 */
async function apiV1(
  app: FastifyInstance,
  {
    core,
    resolvers,
    connectionCaps,
    historyTexts,
    alias = false,
  }: {
    core: Core;
    resolvers: AccountResolver[];
    connectionCaps: ConnectionCaps;
    historyTexts: HistoryTexts;
    alias?: boolean;
  },
) {
  if (alias) {
    app.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
  }
  app.addHook('onRequest', requireAccount(resolvers));
  installIdempotency(app, { repository: core.idempotency });
  await app.register(generationRoutes, {
    generations: core.generations,
    creations: core.creations,
    historyTexts,
  });
  await app.register(taskRoutes, {
    tasks: core.taskService,
    events: core.taskEvents,
    streams: core.metrics.eventStreams,
    caps: connectionCaps,
  });
  await app.register(uploadRoutes, {
    uploads: core.uploads,
    bodyDeadlineMs: core.config.requestTimeouts.uploadDeadlineMs,
  });
  await app.register(userStatusRoutes, {
    upstreamAccess: core.upstreamAccess,
    spendConfirmations: core.spendConfirmations,
  });
  await app.register(usageRoutes, { usage: core.usage });
  await app.register(assetRoutes, { assets: core.assets });
  // /v1/models is the OpenAI-compatible plugin's (same answer, OpenAI's error shape).
  if (!alias) await app.register(catalogRoutes, { catalog: core.catalog });
  await app.register(webhookRoutes, { webhooks: core.webhooks });
  await app.register(curationRoutes, {
    curation: core.curation,
    zipDownloads: core.zipDownloads,
    now: () => core.clock.now(),
  });
}

/**
 * The public API under its prefixes: /api/v1; OpenAI's Images API and the /v1 alias; Google's
 * Gemini API under /v1beta (and /v1).
 */
export async function mountApi(
  app: FastifyInstance,
  core: Core,
  { resolvers, sessionResolver }: { resolvers: AccountResolver[]; sessionResolver: AccountResolver },
): Promise<void> {
  // The spec writes the poll path both as /api/v1/tasks/{id} and /v1/tasks/{id}: serve both.
  // One count of open streams and long-polls for both prefixes.
  const connectionCaps = createConnectionCaps(core.config.resourceCaps.streams);
  // Serialised history pages, kept for this app's both prefixes (not for every app of the process).
  const historyTexts = createHistoryTexts();
  await app.register(apiV1, { prefix: '/api/v1', core, resolvers, connectionCaps, historyTexts });
  // OpenAI's Images API first: /v1/models and /v1/images/* are its; every other /v1 path is the alias.
  // They also take Azure OpenAI's `api-key` header (apps in Azure mode send it).
  const openAiResolvers = [
    bearerKeyResolver(core.accounts.authenticateApiKey, { apiKeyHeader: true }),
    sessionResolver,
  ];
  await app.register(openAiCompatRoutes, { prefix: '/v1', ...openAiCompatDeps(core, openAiResolvers) });
  await app.register(apiV1, { prefix: '/v1', core, resolvers, connectionCaps, historyTexts, alias: true });
  // Google's Gemini API (`@google/genai` sends x-goog-api-key); API keys only, no session.
  const geminiResolvers = [
    bearerKeyResolver(core.accounts.authenticateApiKey, { apiKeyHeader: 'x-goog-api-key' }),
  ];
  const gemini = geminiCompatDeps(core, geminiResolvers);
  await app.register(geminiCompatRoutes, { prefix: '/v1beta', ...gemini });
  await app.register(geminiCompatRoutes, { prefix: '/v1', ...gemini, alias: true });
}
