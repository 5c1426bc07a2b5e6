/**
 * A catalog route's id: `provider/upstreamModel`, the same wherever the catalog names the route (a
 * model's own, a fallback of others). A task runs on one route (tasks/task-route.ts); its price
 * and its capacity pool's limits are found by this id, and its pool's id begins with it.
 */
export const routeIdOf = (route: { provider: string; upstreamModel: string }): string =>
  `${route.provider}/${route.upstreamModel}`;
