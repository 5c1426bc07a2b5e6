import fastifyCookie from '@fastify/cookie';
import Fastify, {
  errorCodes,
  type FastifyBaseLogger,
  type FastifyInstance,
  type RouteOptions,
} from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { createAccountDirectory } from './capabilities/accounts/account-directory.js';
import { createOAuthGrants, OAUTH_SCOPE } from './capabilities/accounts/oauth-grants.js';
import { createPartialFrameReads } from './capabilities/tasks/partial-frames.js';
import { unfinishedByProvider } from './capabilities/tasks/task-counts.js';
import { listAccountBudgets, listKeyBudgets } from './capabilities/usage/budget-list.js';
import type { Core } from './core.js';
import { ADMIN_PREFIX, adminApi } from './edges/admin/admin-api.js';
import { assetRoutes } from './edges/api/assets-routes.js';
import { curationRoutes } from './edges/api/curation-routes.js';
import { blobRoutes } from './edges/api/files-routes.js';
import { createHistoryTexts, generationRoutes, type HistoryTexts } from './edges/api/generations-routes.js';
import { healthRoutes, roleNames } from './edges/api/health-routes.js';
import { installRequestMetrics, metricsRoutes } from './edges/api/metrics-routes.js';
import { catalogRoutes } from './edges/api/models-routes.js';
import { taskRoutes } from './edges/api/tasks-routes.js';
import { uploadRoutes } from './edges/api/uploads-routes.js';
import { usageRoutes } from './edges/api/usage-routes.js';
import { userStatusRoutes } from './edges/api/user-status-routes.js';
import { webhookRoutes } from './edges/api/webhooks-routes.js';
import { createGeminiRequests } from './edges/gemini-compat/generate-content.js';
import { geminiCompatRoutes } from './edges/gemini-compat/routes.js';
import { type AccountResolver, bearerKeyResolver, requireAccount } from './edges/http/authentication.js';
import { installBodyTimeouts } from './edges/http/body-timeouts.js';
import { answerUnsupportedHttpFeatures } from './edges/http/client-errors.js';
import { type ConnectionCaps, createConnectionCaps } from './edges/http/connection-caps.js';
import { installErrorHandling } from './edges/http/error-handler.js';
import { installIdempotency } from './edges/http/idempotency-hooks.js';
import { createInAppGrants } from './edges/http/in-app-grants.js';
import { refuseWhileClosing } from './edges/http/refuse-while-closing.js';
import { compiledSerializerCompiler } from './edges/http/response-serializer.js';
import { edgeServerOptions } from './edges/http/server-options.js';
import { hmacTaskIdSeal } from './edges/mcp/generation-tasks.js';
import { MCP_PATH, mcpEndpoint } from './edges/mcp/http-endpoint.js';
import {
  CLIENT_DOCUMENT_FETCH,
  createClientMetadataDocuments,
} from './edges/oauth/client-metadata-documents.js';
import { mcpAuthenticator } from './edges/oauth/mcp-sign-in.js';
import { canIssue, oauthServer, resourceMetadataUrlOf } from './edges/oauth/oauth-server.js';
import { createImageRequests } from './edges/openai-compat/image-requests.js';
import { createImageStreams } from './edges/openai-compat/image-stream.js';
import { openAiCompatRoutes } from './edges/openai-compat/routes.js';
import { registerOpenApiDocument } from './edges/openapi/openapi-document.js';
import { openApiRoutes } from './edges/openapi/openapi-routes.js';
import { createWebsite } from './edges/website/website.js';
import { fastifyTrustProxy } from './infra/config/trust-proxy.js';
import { createSafeFetcher } from './infra/outbound/safe-fetcher.js';
import { createZipDownloads } from './use-cases/downloads/zip-download.js';

export const JSON_BODY_LIMIT = 1024 * 1024;

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
  });
  const streams = createImageStreams({
    images,
    feed: core.taskEvents,
    tasks: core.taskService,
    blobs: core.blobs,
    clock: core.clock,
    waitMs: core.config.openAiWaitMs,
  });
  return {
    catalog: core.catalog,
    images,
    streams,
    uploads: core.uploads,
    idempotency: core.idempotency,
    resolvers,
    stateIdKey: core.stateIdKey,
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
  await app.register(userStatusRoutes, { upstreamAccess: core.upstreamAccess });
  await app.register(usageRoutes, { usage: core.usage });
  await app.register(assetRoutes, { assets: core.assets });
  // /v1/models is the OpenAI-compatible plugin's (same answer, OpenAI's error shape).
  if (!alias) await app.register(catalogRoutes, { catalog: core.catalog });
  await app.register(webhookRoutes, { webhooks: core.webhooks });
  await app.register(curationRoutes, {
    curation: core.curation,
    zipDownloads: createZipDownloads({ blobs: core.blobs, db: core.db }),
    now: () => core.clock.now(),
  });
}

/**
 * Builds the HTTP app over a core. The server file only adds listening and shutdown.
 * `onRoute` sees every route as it is registered (the contract test lists them with it).
 */
export async function buildApp(
  core: Core,
  options: { onRoute?: (route: RouteOptions) => void } = {},
): Promise<FastifyInstance> {
  const timeouts = core.config.requestTimeouts;
  const app = Fastify({
    ...edgeServerOptions(timeouts),
    loggerInstance: core.logger as FastifyBaseLogger,
    bodyLimit: JSON_BODY_LIMIT,
    // Security: X-Forwarded-* are believed only when the operator says a proxy sets them; otherwise
    // any client could pick its own address (and dodge the sign-in throttle) or claim https.
    trustProxy: fastifyTrustProxy(core.config.trustProxy),
    // New requests during close get our own 503 (refuseWhileClosing), in the error shape.
    return503OnClosing: false,
  });
  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  // Route schemas (Zod) validate params, query and body, and serialise responses.
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(compiledSerializerCompiler);
  // Declared up front, so every request object has one shape (authentication sets it on most).
  app.decorateRequest('account', undefined);
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  installErrorHandling(app);
  refuseWhileClosing(app);
  // Both add hooks to routes as they are registered: before any route.
  installBodyTimeouts(app, timeouts);
  installRequestMetrics(app, core.metrics);
  answerUnsupportedHttpFeatures(app.server);
  // An empty body with a JSON content type (common on POSTs like cancel) reads as no body;
  // everything else goes through Fastify's own parser (which refuses prototype poisoning).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.trim() === '') done(null, undefined);
    else parseJson(request, text, done);
  });
  // Fastify reads text/plain as a string, so JSON sent as text/plain read "must be a JSON object";
  // no route takes text, so a text body is the wrong-Content-Type error (an empty one is no body).
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => {
    if (body.toString().trim() === '') done(null, undefined);
    else done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(), undefined);
  });

  await registerOpenApiDocument(app, { serverUrl: core.config.publicBaseUrl });
  await app.register(healthRoutes, { db: core.db, roles: roleNames(core.config.roles) });
  await app.register(metricsRoutes, { metrics: core.metrics, token: core.config.metricsToken });
  await app.register(fastifyCookie);
  await app.register(blobRoutes, {
    blobs: core.blobs,
    redirect: core.config.filesRedirect,
    renditionCaps: core.config.resourceCaps.renditions,
  });
  await app.register(openApiRoutes);
  // Sign-in for hosted MCP clients (OAuth, docs/mcp.md): offered where the public base URL can be
  // an issuer (https, or loopback for development).
  const { publicBaseUrl } = core.config;
  const mcpUrl = new URL(`${publicBaseUrl}${MCP_PATH}`).href;
  const oauth = canIssue(publicBaseUrl)
    ? createOAuthGrants({
        db: core.db,
        clock: core.clock,
        secrets: core.secrets,
        resource: mcpUrl,
        standing: async (accountId) => (await core.accounts.sessionStanding(accountId))?.account,
      })
    : undefined;
  const website = createWebsite({
    oauth,
    publicBaseUrl: core.config.publicBaseUrl,
    db: core.db,
    clock: core.clock,
    accounts: core.accounts,
    upstreamAccess: core.upstreamAccess,
    generations: core.generations,
    creations: core.creations,
    library: core.library,
    assets: core.assets,
    tasks: core.taskService,
    previews: createPartialFrameReads({ blobs: core.blobs, partialFrames: core.taskService.partialFrames }),
    usage: core.usage,
    curation: core.curation,
    zipDownloads: createZipDownloads({ blobs: core.blobs, db: core.db }),
  });
  // Bearer first: an API call is never judged by a cookie. The session resolver lets the website
  // call /api/v1 same-origin, with its CSRF check on state-changing requests.
  // First, the credentials /mcp opens for its tools' in-app calls (never sent over the network).
  const inApp = createInAppGrants();
  const resolvers = [
    inApp.resolver,
    bearerKeyResolver(core.accounts.authenticateApiKey),
    website.sessionResolver,
  ];
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
    website.sessionResolver,
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
  // MCP over Streamable HTTP (docs/mcp.md): the same tools as the stdio server, over this app's own
  // routes with the caller's key (a read key reaches the read tools only: the routes refuse the rest),
  // or, signed in with OAuth, as the account.
  if (oauth) {
    await app.register(oauthServer, {
      grants: oauth,
      publicBaseUrl,
      mcpUrl,
      documentationUrl: `${publicBaseUrl}/docs`,
      problemPage: website.problemPage,
      clientDocuments: createClientMetadataDocuments({
        // The address policy of uploads' source_url (ATELIER_UPLOAD_ALLOWED_HOSTS), the documents' limits.
        fetch: createSafeFetcher({ allowedHosts: core.config.uploadAllowedHosts, ...CLIENT_DOCUMENT_FETCH })
          .fetchToFile,
        now: () => core.clock.now(),
      }),
    });
  }
  await app.register(mcpEndpoint, {
    publicBaseUrl,
    authenticate: mcpAuthenticator({
      grants: oauth,
      apiKey: bearerKeyResolver(core.accounts.authenticateApiKey),
      inApp,
    }),
    signIn: oauth ? { resourceMetadataUrl: resourceMetadataUrlOf(mcpUrl), scope: OAUTH_SCOPE } : undefined,
    dispatch: (request) => app.inject(request),
    taskIdSeal: (accountId) => hmacTaskIdSeal(core.stateIdKey, accountId),
  });
  // The operator console's API: an operator's API key, or an operator's website session.
  const directory = createAccountDirectory({ db: core.db });
  await app.register(adminApi, {
    prefix: ADMIN_PREFIX,
    deps: {
      resolvers,
      isOperator: core.accounts.isOperator,
      accounts: core.accounts,
      directory,
      usage: core.usage,
      policies: core.tierPolicies,
      budgets: {
        ...core.budgets,
        list: () => listAccountBudgets(core.db),
        listKeys: (accountId) => listKeyBudgets(core.db, accountId),
      },
      providers: core.providers,
      capacity: core.capacity,
      unfinishedTasks: () => unfinishedByProvider(core.db),
      providerKeys: { ...core.keyPools, requireKeyedProvider: core.upstreamAccess.requireKeyedProvider },
      clock: core.clock,
    },
  });
  // A route that declares no schema is left out of the document (the website's pages and static
  // files); the route-coverage test (test/api/openapi-contract.test.ts) names every such route.
  app.addHook('onRoute', (route) => {
    if (route.schema === undefined) route.schema = { hide: true };
  });
  await app.register(website.plugin);
  return app;
}
