import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ADMIN_TAG, adminSecurity, adminUpstreamsSchema } from '../../base/contract/admin.js';
import type { PoolState } from '../../capabilities/tasks/index.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import { ADMIN_AUTH_ERRORS, type AdminDeps } from './admin-deps.js';

/** GET /upstreams: each provider's keys, unfinished tasks and breaker, and every capacity pool. */
export async function adminUpstreamRoutes(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/upstreams',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Live state of the upstreams',
        description:
          "Each provider's keys (the deployment's, how many accounts hold their own), its unfinished tasks (queued, in progress) and its circuit breaker on the node that answers (breakers are per process), and every capacity pool as the store holds it for all nodes: learned limit, calls in flight, tasks waiting, calls and refusals in the last minute, and the hold a Retry-After set.",
        response: {
          200: jsonResponse('The upstreams now', adminUpstreamsSchema),
          ...errorResponses(ADMIN_AUTH_ERRORS),
        },
      },
    },
    async () => {
      const [pools, unfinished, ownKeys, keys] = await Promise.all([
        deps.capacity.states(),
        deps.unfinishedTasks(),
        deps.directory.ownKeyCounts(),
        deps.providerKeys.states(),
      ]);
      // A key of the provider's pool in service (the environment's key is one of its pool's).
      const served = new Set(keys.filter((key) => key.status === 'in_service').map((key) => key.provider));
      return {
        now: deps.clock.now(),
        providers: deps.providers
          .names()
          .map((name) => providerAnswer(deps, name, { served, unfinished, ownKeys })),
        pools: pools.map(poolAnswer),
      };
    },
  );
}

/** One provider: its keys, its unfinished tasks and its breaker on this node. */
function providerAnswer(
  deps: AdminDeps,
  name: string,
  state: {
    served: Set<string>;
    unfinished: Awaited<ReturnType<AdminDeps['unfinishedTasks']>>;
    ownKeys: Map<string, number>;
  },
) {
  const provider = deps.providers.get(name);
  const circuit = provider?.circuit?.();
  const tasks = state.unfinished.find((row) => row.provider === name);
  return {
    name,
    requires_key: provider?.requiresKey ?? true,
    deployment_key: state.served.has(name),
    account_keys: state.ownKeys.get(name) ?? 0,
    queued: tasks?.queued ?? 0,
    in_progress: tasks?.inProgress ?? 0,
    circuit: circuit
      ? {
          state: circuit.state,
          consecutive_failures: circuit.consecutiveFailures,
          probe_in_ms: circuit.msUntilProbe,
        }
      : null,
  };
}

/** One capacity pool as the store holds it for every node. */
function poolAnswer(pool: PoolState) {
  return {
    provider: pool.provider,
    upstream_model: pool.upstreamModel,
    key: pool.key,
    learned_limit: pool.learnedLimit,
    in_flight: pool.inFlight,
    waiting: pool.waiting,
    calls_in_window: pool.callsInWindow,
    refused_in_window: pool.refusedInWindow,
    hold_until: pool.holdUntil,
    updated_at: pool.updatedAt,
  };
}
