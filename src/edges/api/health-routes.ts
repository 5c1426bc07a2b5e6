import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import type { Db } from '../../infra/store/database.js';
import { answerUnsupportedHttpFeatures } from '../http/client-errors.js';
import { installErrorHandling } from '../http/error-handler.js';
import { ApiError } from '../http/errors.js';
import { refuseWhileClosing } from '../http/refuse-while-closing.js';
import { compiledSerializerCompiler } from '../http/response-serializer.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import { DEFAULT_REQUEST_TIMEOUTS, edgeServerOptions, type RequestTimeouts } from '../http/server-options.js';
import { installRequestMetrics, metricsRoutes, type ServedMetrics } from './metrics-routes.js';

/**
 * GET /healthz on every role's port: 200 `{ ok, roles }` when this node can serve — its database
 * answers — else 503 `service_unavailable`, so a load balancer or orchestrator takes it out of
 * rotation while PostgreSQL is unreachable and back when it returns.
 */
const healthSchema = {
  tags: ['Operations'],
  operationId: 'health',
  summary: 'Whether this node can serve',
  // For load balancers and orchestrators: no credentials.
  security: [],
  response: {
    200: jsonResponse(
      'The node and its database answer',
      z.object({
        ok: z.literal(true),
        roles: z.array(z.string()).describe('The roles this node runs, e.g. api, worker'),
      }),
    ),
    ...errorResponses(['service_unavailable']),
  },
};

export async function healthRoutes(app: FastifyInstance, { db, roles }: { db: Db; roles: string[] }) {
  app.withTypeProvider<ZodTypeProvider>().get('/healthz', { schema: healthSchema }, async () => {
    try {
      await sql`select 1`.execute(db);
    } catch {
      throw new ApiError('service_unavailable', 'The database is not reachable');
    }
    return { ok: true as const, roles };
  });
}

/** The HTTP face of a node without the `api` role: only /healthz (and the error shape for the rest). */
export async function buildHealthApp(deps: {
  db: Db;
  roles: string[];
  logger: FastifyBaseLogger;
  timeouts?: RequestTimeouts;
  metrics: ServedMetrics;
  metricsToken?: string | undefined;
}) {
  const app = Fastify({
    ...edgeServerOptions(deps.timeouts ?? DEFAULT_REQUEST_TIMEOUTS),
    loggerInstance: deps.logger,
    // New requests during close get our own 503 (refuseWhileClosing), in the error shape.
    return503OnClosing: false,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(compiledSerializerCompiler);
  installErrorHandling(app);
  installRequestMetrics(app, deps.metrics);
  refuseWhileClosing(app);
  answerUnsupportedHttpFeatures(app.server);
  await app.register(healthRoutes, { db: deps.db, roles: deps.roles });
  await app.register(metricsRoutes, { metrics: deps.metrics, token: deps.metricsToken });
  return app;
}

/** The names of the roles a config enables, e.g. `['api', 'worker']`. */
export function roleNames(roles: Record<string, boolean>): string[] {
  return Object.entries(roles)
    .filter(([, enabled]) => enabled)
    .map(([name]) => name);
}
