/**
 * The catalog check at start: in the background, never delaying or blocking the start. Dates are
 * reported at once; the providers' model lists are asked where a deployment key is set, under a
 * deadline, and a network failure is one more warning line.
 */
import type { Logger } from 'pino';
import { type CheckCatalogOptions, checkCatalog } from './catalog-check.js';
import { routeIdOf } from './route-id.js';

/** Runs the check and logs each warning; resolves when done (never rejects). */
export async function reportCatalogAtStart(
  options: Omit<CheckCatalogOptions, 'signal'> & { logger: Logger; timeoutMs?: number },
): Promise<void> {
  const { logger, timeoutMs = 30_000, ...check } = options;
  try {
    const report = await checkCatalog({ ...check, signal: AbortSignal.timeout(timeoutMs) });
    for (const warning of report.warnings) logger.warn(`catalog check: ${warning}`);
    const upstreams = report.routes.filter((route) => route.provider !== 'local');
    if (upstreams.length > 0 && report.warnings.length === 0) {
      logger.info(
        { upstreamModels: upstreams.map(routeIdOf) },
        'catalog check: no upstream model is gone or near its shutdown',
      );
    }
  } catch (error) {
    logger.warn({ err: error }, 'catalog check failed');
  }
}
