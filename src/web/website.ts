import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';
import type { AccountResolver } from '../http/authentication.js';
import { createLoginThrottle, DEFAULT_LOGIN_THROTTLE, type LoginThrottleOptions } from './login-throttle.js';
import { webApiRoutes } from './routes.js';
import { sessionResolver } from './session-auth.js';
import { createSessions } from './sessions.js';
import { defaultWebDistDir, staticSite } from './static-site.js';
import { createWebReads } from './web-reads.js';

export interface WebsiteOptions {
  /** Where the built site lives (default: the package's web/dist). */
  distDir?: string;
  loginThrottle?: LoginThrottleOptions;
}

/**
 * The website, built over a core: its session resolver (which the /api/v1 scope also accepts, so
 * the site calls the public API with its cookie) and the plugin serving /web/api and the pages.
 */
export function createWebsite(core: Core, options: WebsiteOptions = {}) {
  const sessions = createSessions({ db: core.db, clock: core.clock, accounts: core.accountsRepository });
  const reads = createWebReads({ db: core.db });
  const throttle = createLoginThrottle({
    db: core.db,
    clock: core.clock,
    options: options.loginThrottle ?? DEFAULT_LOGIN_THROTTLE,
  });
  const resolver: AccountResolver = sessionResolver(sessions, core.config.publicBaseUrl);

  return {
    sessionResolver: resolver,
    /** Registers /web/api/* and the static site (register at the root, without a prefix). */
    async plugin(app: FastifyInstance) {
      await app.register(webApiRoutes, { prefix: '/web/api', core, sessions, reads, throttle });
      await app.register(staticSite, {
        distDir: options.distDir ?? defaultWebDistDir(),
        publicBaseUrl: core.config.publicBaseUrl,
      });
    },
  };
}
