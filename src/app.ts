import fastifyCookie from '@fastify/cookie';
import Fastify, {
  errorCodes,
  type FastifyBaseLogger,
  type FastifyInstance,
  type RouteOptions,
} from 'fastify';
import { mountApi } from './app-api.js';
import { OAUTH_SCOPE, type OAuthGrants } from './capabilities/accounts/index.js';
import type { Core } from './core.js';
import { ADMIN_PREFIX, adminApi } from './edges/admin/admin-api.js';
import { blobRoutes } from './edges/api/files-routes.js';
import { healthRoutes, roleNames } from './edges/api/health-routes.js';
import { installRequestMetrics, metricsRoutes } from './edges/api/metrics-routes.js';
import { type AccountResolver, bearerKeyResolver } from './edges/http/authentication.js';
import { installBodyTimeouts } from './edges/http/body-timeouts.js';
import { answerUnsupportedHttpFeatures } from './edges/http/client-errors.js';
import { installErrorHandling } from './edges/http/error-handler.js';
import { installFrameworkRefusals } from './edges/http/framework-refusals.js';
import { createInAppGrants, type InAppGrants } from './edges/http/in-app-grants.js';
import { refuseWhileClosing } from './edges/http/refuse-while-closing.js';
import { compiledSerializerCompiler } from './edges/http/response-serializer.js';
import { routeValidatorCompiler } from './edges/http/route-validation.js';
import { edgeServerOptions } from './edges/http/server-options.js';
import { mcpDiscovery } from './edges/mcp/discovery.js';
import { hmacTaskIdSeal } from './edges/mcp/generation-tasks.js';
import { createAnswerStore, MCP_PATH, mcpEndpoint } from './edges/mcp/http-endpoint.js';
import type { ProblemPage } from './edges/oauth/authorize-endpoint.js';
import {
  CLIENT_DOCUMENT_FETCH,
  createClientMetadataDocuments,
} from './edges/oauth/client-metadata-documents.js';
import { mcpAuthenticator } from './edges/oauth/mcp-sign-in.js';
import { canIssue, oauthServer, resourceMetadataUrlOf } from './edges/oauth/oauth-server.js';
import { registerOpenApiDocument } from './edges/openapi/openapi-document.js';
import { openApiRoutes } from './edges/openapi/openapi-routes.js';
import { createWebsite } from './edges/website/website.js';
import { fastifyTrustProxy } from './infra/config/trust-proxy.js';
import { createSafeFetcher } from './infra/outbound/safe-fetcher.js';

export const JSON_BODY_LIMIT = 1024 * 1024;

type Website = ReturnType<typeof createWebsite>;

/** The Fastify instance: the edge's server options, the core's logger, the JSON body limit, the proxy policy. */
function createServer(core: Core): FastifyInstance {
  return Fastify({
    ...edgeServerOptions(core.config.requestTimeouts),
    loggerInstance: core.logger as FastifyBaseLogger,
    bodyLimit: JSON_BODY_LIMIT,
    // Security: X-Forwarded-* are believed only when the operator says a proxy sets them; otherwise
    // any client could pick its own address (and dodge the sign-in throttle) or claim https.
    trustProxy: fastifyTrustProxy(core.config.trustProxy),
    // New requests during close get our own 503 (refuseWhileClosing), in the error shape.
    return503OnClosing: false,
  });
}

/** Body parsers: an empty JSON body is no body; a text body is the wrong-Content-Type error. */
function installBodyParsers(app: FastifyInstance): void {
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
}

/** What every route shares: schemas, the request id, errors, closing, body timeouts, metrics, parsers. */
function installHttpKit(app: FastifyInstance, core: Core): void {
  // Route schemas (Zod) validate params, query and body, and serialise responses.
  app.setValidatorCompiler(routeValidatorCompiler);
  app.setSerializerCompiler(compiledSerializerCompiler);
  // Declared up front, so every request object has one shape (authentication sets it on most).
  app.decorateRequest('account', undefined);
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  installErrorHandling(app);
  installFrameworkRefusals(app);
  refuseWhileClosing(app);
  // Both add hooks to routes as they are registered: before any route.
  installBodyTimeouts(app, core.config.requestTimeouts);
  installRequestMetrics(app, core.metrics);
  answerUnsupportedHttpFeatures(app.server);
  installBodyParsers(app);
}

/** The routes without an account: the OpenAPI document, health, metrics, files. */
async function mountOpenRoutes(app: FastifyInstance, core: Core): Promise<void> {
  await registerOpenApiDocument(app, { serverUrl: core.config.publicBaseUrl });
  await app.register(healthRoutes, { db: core.resources.db, roles: roleNames(core.config.roles) });
  await app.register(metricsRoutes, { metrics: core.metrics, token: core.config.metricsToken });
  await app.register(fastifyCookie);
  await app.register(blobRoutes, {
    blobs: core.blobs,
    redirect: core.config.filesRedirect,
    renditionCaps: core.config.resourceCaps.renditions,
    isGone: core.lifecycle.isGone,
    zeroRetention: core.lifecycle.zeroRetention,
  });
  await app.register(openApiRoutes);
}

/**
 * Sign-in for hosted MCP clients (OAuth, docs/mcp.md): offered where the public base URL can be an
 * issuer (https, or loopback for development); tokens are issued for this app's /mcp URL.
 */
function mcpSignIn(core: Core) {
  const { publicBaseUrl } = core.config;
  const mcpUrl = new URL(`${publicBaseUrl}${MCP_PATH}`).href;
  return { mcpUrl, grants: canIssue(publicBaseUrl) ? core.oauthGrants(mcpUrl) : undefined };
}

/** The website over the services it uses (and the store for its own tables: sessions, sign-in failures). */
function websiteOf(core: Core, oauth: OAuthGrants | undefined) {
  return createWebsite({
    oauth,
    publicBaseUrl: core.config.publicBaseUrl,
    db: core.resources.db,
    clock: core.clock,
    accounts: core.accounts,
    upstreamAccess: core.upstreamAccess,
    spendConfirmations: core.spendConfirmations,
    generations: core.generations,
    creations: core.creations,
    library: core.library,
    assets: core.assets,
    tasks: core.taskService,
    previews: core.previews,
    usage: core.usage,
    curation: core.curation,
    zipDownloads: core.zipDownloads,
    accountData: {
      export: (accountId, now) => core.accountExport.open(accountId, now),
      erase: (accountId) => core.lifecycle.eraseAccount(accountId),
      audit: async (actor, action, accountId) =>
        void (await core.audit.record(
          { ...actor, source: 'website' },
          { action, target: { type: 'account', id: accountId }, before: null, after: null },
        )),
    },
  });
}

/** The OAuth authorization server for hosted MCP clients (when the base URL may issue). */
async function mountOAuth(
  app: FastifyInstance,
  core: Core,
  { grants, mcpUrl, problemPage }: { grants: OAuthGrants; mcpUrl: string; problemPage: ProblemPage },
): Promise<void> {
  const { publicBaseUrl } = core.config;
  await app.register(oauthServer, {
    grants,
    publicBaseUrl,
    mcpUrl,
    documentationUrl: `${publicBaseUrl}/docs`,
    problemPage,
    clientDocuments: createClientMetadataDocuments({
      // The address policy of uploads' source_url (ATELIER_UPLOAD_ALLOWED_HOSTS), the documents' limits.
      fetch: createSafeFetcher({ allowedHosts: core.config.uploadAllowedHosts, ...CLIENT_DOCUMENT_FETCH })
        .fetchToFile,
      now: () => core.clock.now(),
    }),
  });
}

/**
 * MCP over Streamable HTTP (docs/mcp.md): the same tools as the stdio server, over this app's own
 * routes with the caller's key (a read key reaches the read tools only: the routes refuse the rest),
 * or, signed in with OAuth, as the account; /mcp/readonly with the read tools only; and the discovery
 * document (/.well-known/mcp/server.json) with the icon it names.
 */
async function mountMcp(
  app: FastifyInstance,
  core: Core,
  { grants, mcpUrl, inApp }: ReturnType<typeof mcpSignIn> & { inApp: InAppGrants },
): Promise<void> {
  const signIn = grants
    ? { resourceMetadataUrl: resourceMetadataUrlOf(mcpUrl), scope: OAUTH_SCOPE }
    : undefined;
  await app.register(mcpEndpoint, {
    publicBaseUrl: core.config.publicBaseUrl,
    authenticate: mcpAuthenticator({
      grants,
      apiKey: bearerKeyResolver(core.accounts.authenticateApiKey),
      inApp,
    }),
    signIn,
    dispatch: (request) => app.inject(request),
    taskIdSeal: (accountId) => hmacTaskIdSeal(core.stateIdKey, accountId),
    answers: createAnswerStore({ db: core.resources.db, clock: core.clock }),
    confirmTimeoutMs: core.config.mcpConfirmTimeoutMs,
  });
  await app.register(mcpDiscovery, { publicBaseUrl: core.config.publicBaseUrl, signIn });
}

/** The operator console's API: an operator's API key, or an operator's website session. */
async function mountAdmin(app: FastifyInstance, core: Core, resolvers: AccountResolver[]): Promise<void> {
  await app.register(adminApi, {
    prefix: ADMIN_PREFIX,
    deps: {
      resolvers,
      isOperator: core.accounts.isOperator,
      accounts: core.accounts,
      directory: core.accountDirectory,
      usage: core.usage,
      policies: core.tierPolicies,
      budgets: core.budgets,
      providers: core.providers,
      capacity: core.capacity,
      unfinishedTasks: core.unfinishedTasks,
      queue: core.queue,
      providerKeys: {
        ...core.keyPools,
        requireKeyedProvider: core.upstreamAccess.requireKeyedProvider,
        keyedProviders: core.upstreamAccess.keyedProviders,
      },
      taskLog: core.taskLog,
      alerts: core.alerts,
      audit: core.audit,
      catalog: core.catalogVersions,
      retention: core.lifecycle.accountRetention,
      accountData: {
        export: (accountId, now) => core.accountExport.open(accountId, now),
        erase: (accountId) => core.lifecycle.eraseAccount(accountId),
      },
      clock: core.clock,
    },
  });
}

/** The website's API and pages, last: a route that declares no schema is left out of the document. */
async function mountWebsite(app: FastifyInstance, website: Website): Promise<void> {
  // The route-coverage test (test/api/openapi-contract.test.ts) names every such route.
  app.addHook('onRoute', (route) => {
    if (route.schema === undefined) route.schema = { hide: true };
  });
  await app.register(website.plugin);
}

/**
 * Builds the HTTP app over a core: the edges, mounted in order. The server file only adds
 * listening and shutdown. `onRoute` sees every route as it is registered (the contract test lists
 * them with it).
 */
export async function buildApp(
  core: Core,
  options: { onRoute?: (route: RouteOptions) => void } = {},
): Promise<FastifyInstance> {
  const app = createServer(core);
  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  installHttpKit(app, core);
  await mountOpenRoutes(app, core);
  const signIn = mcpSignIn(core);
  const website = websiteOf(core, signIn.grants);
  // Bearer first: an API call is never judged by a cookie. The session resolver lets the website
  // call /api/v1 same-origin, with its CSRF check on state-changing requests.
  // First, the credentials /mcp opens for its tools' in-app calls (never sent over the network).
  const inApp = createInAppGrants();
  const { sessionResolver } = website;
  const resolvers = [inApp.resolver, bearerKeyResolver(core.accounts.authenticateApiKey), sessionResolver];
  await mountApi(app, core, { resolvers, sessionResolver });
  if (signIn.grants)
    await mountOAuth(app, core, { ...signIn, grants: signIn.grants, problemPage: website.problemPage });
  await mountMcp(app, core, { ...signIn, inApp });
  await mountAdmin(app, core, resolvers);
  await mountWebsite(app, website);
  return app;
}
