// The server, loaded by its entry (server.ts) once the runtime is checked and the compile cache is on.

import { buildApp } from './app.js';
import { enableStageTiming } from './base/observability/stage-timing.js';
import { lowerPoolThreadPriority } from './base/runtime/pool-priority.js';
import { demoBanner, ensureDemoAccount, writeDemoCredentials } from './capabilities/accounts/index.js';
import { reportCatalogAtStart } from './capabilities/catalog/index.js';
import { createCore } from './core.js';
import { buildHealthApp, roleNames } from './edges/api/health-routes.js';
import { loadConfig, loadDotEnv } from './infra/config/config.js';

/** Starts Atelier: config from the environment, the HTTP API and/or the worker, graceful shutdown. */
async function main(): Promise<void> {
  loadDotEnv();
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
  if (config.stageTiming) enableStageTiming();
  const core = await createCore(config);
  for (const warning of config.warnings) core.logger.warn(warning);
  // Image work and file I/O yield contended cores to the event loop, which answers every request.
  const poolThreadsLowered = await lowerPoolThreadPriority();
  // Every role listens: an api node serves the whole app, a worker-only node just /healthz.
  const app = config.roles.api
    ? await buildApp(core)
    : await buildHealthApp({
        db: core.resources.db,
        roles: roleNames(config.roles),
        logger: core.logger,
        timeouts: config.requestTimeouts,
        metrics: core.metrics,
        metricsToken: config.metricsToken,
      });

  if (config.createDemoAccount) {
    const demo = await ensureDemoAccount(core.accountsRepository, core.accounts);
    if (demo) {
      const path = await writeDemoCredentials(config.dataDir, demo, config.publicBaseUrl);
      process.stdout.write(`${demoBanner(demo.email, path)}\n`);
    }
  }

  if (config.roles.worker) {
    core.engine.start();
    core.webhooks.start();
    core.alerts.start();
    void core.housekeeping.start();
  }
  await app.listen({ port: config.port, host: config.host });
  // leaseOwner names this node in the tasks' lease_owner column (which node holds which task).
  core.logger.info(
    {
      roles: config.roles,
      publicBaseUrl: config.publicBaseUrl,
      leaseOwner: core.engine.owner,
      poolThreadsLowered,
    },
    'atelier is ready',
  );
  // In the background: a slow or unreachable model list never delays the start.
  void reportCatalogAtStart({
    catalog: core.catalog,
    providers: core.providers,
    keys: core.providers.deploymentKeys,
    now: () => core.clock.now(),
    logger: core.logger.child({ component: 'catalog-check' }),
  });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    core.logger.info({ signal }, 'shutting down');
    let phase = 'closing HTTP (in-flight requests finish)';
    const forceExit = setTimeout(() => {
      core.logger.error({ phase }, 'shutdown did not finish within 15 s; exiting');
      process.exit(1);
    }, 15_000);
    forceExit.unref();
    try {
      await app.close(); // in-flight requests finish; new ones get 503
      phase = 'closing the core (engine, webhooks, change feed, database)';
      await core.close(5000); // the engine stops leasing and gives its leases back; the database closes
      process.exit(0);
    } catch (error) {
      core.logger.error({ err: error }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error) => {
  process.stderr.write(`atelier failed to start: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
