import type { FastifyInstance } from 'fastify';
import type { AccountResolver } from '../http/authentication.js';
import { createLoginThrottle, DEFAULT_LOGIN_THROTTLE, type LoginThrottleOptions } from './login-throttle.js';
import { webApiRoutes } from './routes.js';
import { sessionResolver } from './session-auth.js';
import { createSessions, type SessionPolicy } from './sessions.js';
import { defaultWebDistDir, problemPageSender, staticSite } from './static-site.js';
import type { WebsiteServices } from './website-services.js';

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
  const distDir = options.distDir ?? defaultWebDistDir();

  return {
    sessionResolver: resolver,
    /** Answers with the website's page stating a problem (an OAuth authorization request's). */
    problemPage: problemPageSender(distDir, publicBaseUrl),
    /** Registers /web/api/* and the static site (register at the root, without a prefix). */
    async plugin(app: FastifyInstance) {
      await app.register(webApiRoutes, { prefix: '/web/api', services, sessions, throttle });
      await app.register(staticSite, { distDir, publicBaseUrl });
    },
  };
}
