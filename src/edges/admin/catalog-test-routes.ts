/**
 * POST /catalog/test: one small real request through one route of the catalog in force — a short
 * fixed prompt, the route's model's smallest size, one image, the operator's own key or else the
 * deployment's (as a task of the operator's would) — and the answer shown: the image's type and
 * size with a preview, or the upstream's error. Outside the task engine: no task, no capacity slot,
 * no retry, no fallback; recorded in the audit log with its cost.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ADMIN_TAG, adminSecurity } from '../../base/contract/admin.js';
import {
  type AdminRouteTestWire,
  adminRouteTestBodySchema,
  adminRouteTestSchema,
} from '../../base/contract/admin-catalog.js';
import { InvalidInput, NotFound } from '../../base/domain/errors.js';
import { IMAGE_SIZES, pixelSize } from '../../base/domain/image-sizes.js';
import { costOfImage, routesOf } from '../../capabilities/catalog/index.js';
import type { ImageProvider, ProviderRequest, SubmitOutcome } from '../../capabilities/providers/index.js';
import { inspectImageBuffer } from '../../infra/images/inspect-image.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import { ADMIN_WRITE_ERRORS, type AdminDeps } from './admin-deps.js';
import { audited } from './audit-trail.js';

export const TEST_PROMPT = 'A small red circle on a white background';
/** Past this, the preview is not inlined. */
const PREVIEW_BYTES = 2 * 1024 * 1024;

/** The model and route a route id names in the catalog in force (the first model that lists it). */
function routeOf(deps: AdminDeps, routeId: string) {
  for (const model of deps.catalog.catalog.models) {
    const route = routesOf(model).find((r) => r.id === routeId);
    if (route) return { model, route };
  }
  throw new NotFound(
    `no route "${routeId}" in the catalog in force (a route id is <provider>/<upstream model>)`,
  );
}

/** Submits, then polls a pending job, until an image, a failure or the deadline. */
type Ended = Exclude<SubmitOutcome, { kind: 'pending' }>;

async function callOnce(provider: ImageProvider, request: ProviderRequest): Promise<Ended> {
  let outcome: SubmitOutcome = await provider.submit(request);
  while (outcome.kind === 'pending') {
    const wait = provider.pollIntervalMs ?? 1000;
    await new Promise((resolve) => setTimeout(resolve, wait));
    if (request.signal.aborted)
      return { kind: 'failed', message: 'the test timed out', retryable: true, cause: 'timeout' };
    const upstreamId = outcome.upstreamId;
    const polled = await provider.poll({ ...request, upstreamId });
    outcome =
      polled.kind === 'pending' ? { kind: 'pending', upstreamId: polled.upstreamId ?? upstreamId } : polled;
  }
  return outcome;
}

async function imageOf(
  outcome: Extract<SubmitOutcome, { kind: 'done' }>,
): Promise<AdminRouteTestWire['image']> {
  if ('url' in outcome.image)
    return { content_type: null, width: null, height: null, bytes: null, preview_url: outcome.image.url };
  const bytes = outcome.image.bytes;
  const info = await inspectImageBuffer(bytes).catch(() => undefined);
  const type = info?.contentType ?? outcome.image.contentType ?? null;
  return {
    content_type: type,
    width: info?.width ?? null,
    height: info?.height ?? null,
    bytes: bytes.length,
    preview_url:
      type && bytes.length <= PREVIEW_BYTES ? `data:${type};base64,${bytes.toString('base64')}` : null,
  };
}

/** Runs the test of `routeId` for the operator `accountId`. */
export async function testRoute(
  deps: AdminDeps,
  accountId: string,
  routeId: string,
): Promise<AdminRouteTestWire> {
  const { model, route } = routeOf(deps, routeId);
  const provider = deps.providers.get(route.provider);
  if (!provider)
    throw new InvalidInput(`provider "${route.provider}" is not available on this node`, 'route_id');
  const size = IMAGE_SIZES.find((s) => model.sizes.includes(s)) ?? '1K';
  const aspect = model.aspects.includes('1:1') ? '1:1' : (model.aspects[0] ?? '1:1');
  const apiKey = provider.requiresKey
    ? await deps.accounts.keyResolver.resolve(accountId, provider.name)
    : null;
  const started = deps.clock.now();
  const outcome = await callOnce(provider, {
    taskId: `test_${started.toString(36)}`,
    upstreamModel: route.upstreamModel,
    mode: 'text',
    prompt: TEST_PROMPT,
    aspect,
    imageSize: size,
    ...pixelSize(aspect, size),
    index: 0,
    references: [],
    apiKey,
    signal: AbortSignal.timeout(120_000),
  });
  const duration = Math.max(0, deps.clock.now() - started);
  const request = { prompt: TEST_PROMPT, size, aspect };
  if (outcome.kind !== 'done') {
    const error = { cause: outcome.cause ?? null, message: outcome.message };
    return {
      route_id: routeId,
      model: model.id,
      ok: false,
      duration_ms: duration,
      image: null,
      error,
      cost_usd: null,
      request,
    };
  }
  const cost = costOfImage(route.price, size, outcome.usage);
  return {
    ...{ route_id: routeId, model: model.id, ok: true, duration_ms: duration },
    ...{ image: await imageOf(outcome), error: null, request },
    cost_usd: cost ? cost.micros / 1_000_000 : null,
  };
}

export async function adminRouteTestRoutes(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/catalog/test',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Test a route with one small real request',
        description: `Sends "${TEST_PROMPT}" at the model's smallest size, one image, through the route's provider with the operator's key (else the deployment's), outside the task engine (no task, no capacity slot, no retry, no fallback), and answers what came back: the image's type, size and a preview, or the upstream's error (an upstream failure is a 200 with ok: false). It costs what one image costs on the route; recorded in the audit log with that cost.`,
        body: adminRouteTestBodySchema,
        response: {
          200: jsonResponse('What the upstream answered', adminRouteTestSchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'not_found']),
        },
      },
    },
    async (request) => {
      const answer = await testRoute(deps, accountOf(request).id, request.body.route_id);
      await audited(deps, request, {
        action: 'catalog.route.test',
        target: { type: 'catalog-route', id: answer.route_id },
        before: null,
        after: {
          ...{ model: answer.model, ok: answer.ok, duration_ms: answer.duration_ms },
          ...{ error: answer.error, cost_usd: answer.cost_usd },
        },
      });
      return answer;
    },
  );
}
