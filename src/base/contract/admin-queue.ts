/**
 * The wire shapes of the operator's queue (`/api/admin/v1/queue`, issue 43): per route and key pool,
 * the tasks waiting and why, those in flight, the pools' limits and holds, and each account's share
 * of the waiting and of the next fair turns; and the cancel of one task, an account's or a route's.
 */
import { z } from 'zod';

const count = z.number().int().min(0);
const epochMs = z.number().int();

/** Why a pool or a route lets no call leave now. */
export const QUEUE_HOLD_REASONS = [
  'rate_limit_refusal',
  'request_budget',
  'per_minute_limit',
  'configured_limit',
  'learned_limit',
  'circuit_open',
] as const;

const holdSchema = z
  .object({
    reason: z
      .enum(QUEUE_HOLD_REASONS)
      .describe(
        "rate_limit_refusal: an upstream refusal's Retry-After; request_budget: the request budget the upstream reported is spent; per_minute_limit: the catalog's calls per minute; configured_limit: the catalog's calls at once; learned_limit: the calls at once learned from refusals; circuit_open: the provider's circuit breaker on the node that answered",
      ),
    until: epochMs.nullable().describe('When it ends (epoch ms); null: when a call in flight ends'),
  })
  .nullable()
  .describe('What holds it now; null: a call may leave');

const accountShareSchema = z.object({
  account_id: z.string(),
  email: z.string().nullable(),
  waiting: count.describe('Its tasks waiting on the route (for a slot, a turn or a retry)'),
  in_flight: count.describe('Its tasks held by a worker or accepted upstream on the route'),
  queued: count.describe(
    'Its tasks on the route whose status is queued (what a cancel of queued tasks takes)',
  ),
  waiting_share: z.number().min(0).max(1).describe('Its part of the route’s waiting tasks'),
  next_turns: count.describe(
    'Of the route’s next `turns_counted` turns, how many are its own (fair turns: the account with the fewest tasks in flight goes next)',
  ),
});

const poolSchema = z.object({
  pool: z.string().describe('`provider/upstreamModel/key`'),
  key: z
    .string()
    .describe('The key part: a hash of the key or of its project (never the key); none without a key'),
  key_names: z
    .array(z.string())
    .describe("The deployment's pooled keys that draw on this pool (none: an account's own key)"),
  max_in_flight: count.nullable().describe('Calls at once the catalog sets on the route; null: none'),
  per_minute: count.nullable().describe('Calls per minute the catalog sets on the route; null: none'),
  learned_limit: count.nullable().describe('Calls at once learned from refusals, while in force; null: none'),
  in_flight: count.describe('Calls holding a slot now, on every node'),
  calls_in_window: count.describe('Calls started in the last window (about a minute), refused ones included'),
  refused_in_window: count.describe('Of those, the calls the upstream refused'),
  parked: count.describe('Tasks parked on the pool, waiting for a slot'),
  called_back: count.describe('Parked tasks called back, waiting for a worker’s turn'),
  hold: holdSchema,
  accounts: z
    .array(
      z.object({ account_id: z.string(), email: z.string().nullable(), parked: count, share: z.number() }),
    )
    .describe('Each account with tasks parked on the pool, most first (at most 20), and its share of them'),
});

const routeSchema = z.object({
  route: z.string().describe('`provider/upstreamModel`'),
  provider: z.string(),
  upstream_model: z.string(),
  waiting: z.object({
    total: count,
    capacity: count.describe('Parked on a pool of the route, waiting for a slot'),
    turn: count.describe('Due, waiting for a worker to take it in fair turns between accounts'),
    retry: count.describe('Waiting to retry after a failure, or for an open circuit’s probe'),
  }),
  in_flight: z.object({
    total: count,
    working: count.describe('Held by a worker: asking for a slot, or its submit call under way'),
    upstream: count.describe('Accepted upstream: rendering, in the upstream’s own queue, or between polls'),
  }),
  queued: count.describe('Unfinished tasks whose status is queued'),
  in_progress: count.describe('Unfinished tasks whose status is in_progress'),
  oldest_created_at: epochMs.nullable().describe('When its oldest waiting task was created'),
  next_retry_at: epochMs.nullable().describe('The earliest retry of its tasks waiting to retry'),
  circuit: z
    .object({ state: z.enum(['closed', 'open', 'half_open']), probe_in_ms: count })
    .nullable()
    .describe("Its provider's circuit breaker on the node that answered; null: none (the local renderer)"),
  hold: holdSchema.describe('An open circuit on the node that answered; null otherwise'),
  pools: z.array(poolSchema).describe('Its capacity pools, one per key'),
  turns_counted: count.describe(
    'How many next turns `next_turns` counts: ten, or the waiting tasks when fewer',
  ),
  accounts: z.array(accountShareSchema).describe('Its accounts, most waiting first (at most 50)'),
  accounts_omitted: count.describe('Accounts with tasks on the route beyond those listed'),
});

export const adminQueueSchema = z
  .object({
    now: epochMs.describe("The server's time (epoch ms)"),
    totals: z.object({ waiting: count, in_flight: count, queued: count, in_progress: count }),
    routes: z
      .array(routeSchema)
      .describe('Routes with unfinished tasks or a capacity pool, most waiting first'),
  })
  .meta({ id: 'AdminQueue' });
export type AdminQueue = z.output<typeof adminQueueSchema>;
export type AdminQueueRoute = AdminQueue['routes'][number];
export type AdminQueuePool = AdminQueueRoute['pools'][number];

/** Which unfinished tasks a cancel takes: those whose status is queued (the default), or every one. */
export const QUEUE_CANCEL_STATUSES = ['queued', 'unfinished'] as const;

export const adminQueueCancelSchema = z
  .object({
    task_id: z.string().min(1).max(100).optional().describe('One task, of any account'),
    account_id: z.string().min(1).max(100).optional().describe("An account's tasks, on every route"),
    route: z
      .string()
      .regex(/^[^/\s]+\/\S+$/, 'must be a route id, provider/upstreamModel')
      .max(300)
      .optional()
      .describe("A route's tasks, of every account: `provider/upstreamModel`"),
    status: z
      .enum(QUEUE_CANCEL_STATUSES)
      .default('queued')
      .describe('queued (default): tasks whose status is queued; unfinished: in_progress ones too'),
  })
  .refine((body) => [body.task_id, body.account_id, body.route].filter((v) => v !== undefined).length === 1, {
    message: 'must give exactly one of task_id, account_id and route',
  })
  // The refinement, as JSON Schema states it (the document's; Zod validates with the refinement).
  .meta({ oneOf: [{ required: ['task_id'] }, { required: ['account_id'] }, { required: ['route'] }] });
export type AdminQueueCancel = z.output<typeof adminQueueCancelSchema>;

export const adminQueueCanceledSchema = z
  .object({
    scope: z.enum(['task', 'account', 'route']),
    target: z.string().describe('The task id, account id or route id'),
    status: z.enum(QUEUE_CANCEL_STATUSES),
    canceled: count.describe('How many tasks this cancel ended'),
    error: z.string().describe('The error each canceled task now reads'),
  })
  .meta({ id: 'AdminQueueCanceled' });
export type AdminQueueCanceled = z.output<typeof adminQueueCanceledSchema>;
