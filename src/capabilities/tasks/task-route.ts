import { routeIdOf } from '../catalog/index.js';

/**
 * The catalog route a task runs on, as one id (route-id.ts), from its row's provider
 * and upstream model (a fallback moves the two together); the same for an upstream pool's row,
 * whose id begins with it. A task's price and its pool's limits are found by this id.
 */
export const routeIdOfRow = (row: { provider: string; upstream_model: string }): string =>
  routeIdOf({ provider: row.provider, upstreamModel: row.upstream_model });
