import type { FastifyInstance } from 'fastify';
import type { AccountsService } from '../accounts/accounts-service.js';
import type { UpstreamAccess } from '../accounts/upstream-access.js';
import type { AssetsRepository } from '../assets/assets-repository.js';
import type { GenerationsService } from '../generations/generations-service.js';
import type { AccountResolver } from '../http/authentication.js';
import type { Clock } from '../runtime/clock.js';
import type { Db } from '../store/database.js';
import type { TasksService } from '../tasks/tasks-service.js';
import type { UsageService } from '../usage/usage-service.js';
import { createLoginThrottle, DEFAULT_LOGIN_THROTTLE, type LoginThrottleOptions } from './login-throttle.js';
import { webApiRoutes } from './routes.js';
import { sessionResolver } from './session-auth.js';
import { createSessions, type SessionPolicy } from './sessions.js';
import { defaultWebDistDir, staticSite } from './static-site.js';

/**
 * What the website uses of the core: capability services, and the database only for its own
 * tables (sessions, sign-in failures). Everything else of the core it never sees.
 */
export interface WebsiteServices {
  /** The service's public base URL: the origin state-changing requests must come from. */
  publicBaseUrl: string;
  db: Db;
  clock: Clock;
  accounts: Pick<
    AccountsService,
    | 'findById'
    | 'verifyLogin'
    | 'apiKeyHint'
    | 'rotateApiKey'
    | 'setUpstreamKey'
    | 'setPassword'
    | 'confirmPassword'
    | 'sessionStanding'
  >;
  upstreamAccess: Pick<UpstreamAccess, 'hasKey' | 'overview' | 'requireKeyedProvider'>;
  generations: Pick<GenerationsService, 'generate' | 'savedWorks' | 'remove'>;
  tasks: Pick<TasksService, 'listPendingForAccount'>;
  assets: Pick<AssetsRepository, 'libraryPage'>;
  usage: Pick<UsageService, 'report'>;
}

export interface WebsiteOptions {
  /** Where the built site lives (default: the package's web/dist). */
  distDir?: string;
  loginThrottle?: LoginThrottleOptions;
  /** How long sessions last (default DEFAULT_SESSION_POLICY). */
  sessionPolicy?: SessionPolicy;
}

/**
 * The website, built over the services it uses: its session resolver (which the /api/v1 scope
 * also accepts, so the site calls the public API with its cookie) and the plugin serving /web/api
 * and the pages.
 */
export function createWebsite(services: WebsiteServices, options: WebsiteOptions = {}) {
  const { db, clock, publicBaseUrl } = services;
  const sessions = createSessions({
    db,
    clock,
    accounts: services.accounts,
    ...(options.sessionPolicy ? { policy: options.sessionPolicy } : {}),
  });
  const throttle = createLoginThrottle({
    db,
    clock,
    options: options.loginThrottle ?? DEFAULT_LOGIN_THROTTLE,
  });
  const resolver: AccountResolver = sessionResolver(sessions, publicBaseUrl);

  return {
    sessionResolver: resolver,
    /** Registers /web/api/* and the static site (register at the root, without a prefix). */
    async plugin(app: FastifyInstance) {
      await app.register(webApiRoutes, { prefix: '/web/api', services, sessions, throttle });
      await app.register(staticSite, { distDir: options.distDir ?? defaultWebDistDir(), publicBaseUrl });
    },
  };
}
