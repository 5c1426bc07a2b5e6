import type { RouteOptions } from 'fastify';

/**
 * Hooks some routes need, added to those routes from an `onRoute` hook rather than to every
 * request: a poll does not pay for an idempotency claim, a body watch or a label lookup.
 */
export const hookList = <Hook>(hooks: Hook | Hook[] | undefined): Hook[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];

/** The methods a route answers. */
export const routeMethods = (route: RouteOptions): string[] =>
  Array.isArray(route.method) ? route.method : [route.method];
