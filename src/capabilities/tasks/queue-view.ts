import type { AdminQueue, AdminQueuePool, AdminQueueRoute } from '../../base/contract/admin-queue.js';
import { routeIdOf } from '../catalog/index.js';
import type { CapacityLimits } from './capacity/capacity-pool.js';
import { configuredPerMinute } from './capacity/capacity-pool.js';
import { learnedLimitNow, poolHold } from './capacity/pool-holds.js';
import type { LearningRules } from './capacity/pool-learning.js';
import type { QueueGroup, QueuePoolRow } from './queue-reads.js';

/** The next turns a route's account shares are counted over (or its waiting tasks, when fewer). */
export const TURNS_COUNTED = 10;
const ACCOUNTS_LISTED = 50;
const POOL_ACCOUNTS_LISTED = 20;

/** What the view is assembled with beside the store's rows. */
export interface QueueViewParts {
  now: number;
  rules: LearningRules;
  windowSpan: number;
  limitsOf(routeId: string): CapacityLimits;
}

interface AccountTally {
  waiting: number;
  inFlight: number;
  queued: number;
  oldest: number;
}

const WAITING = new Set(['capacity', 'turn', 'retry']);

/** An empty route, ready for its tasks and pools to be counted in. */
function emptyRoute(provider: string, upstreamModel: string): AdminQueueRoute {
  return {
    route: routeIdOf({ provider, upstreamModel }),
    provider,
    upstream_model: upstreamModel,
    waiting: { total: 0, capacity: 0, turn: 0, retry: 0 },
    in_flight: { total: 0, working: 0, upstream: 0 },
    queued: 0,
    in_progress: 0,
    oldest_created_at: null,
    next_retry_at: null,
    circuit: null,
    hold: null,
    pools: [],
    turns_counted: 0,
    accounts: [],
    accounts_omitted: 0,
  };
}

/** A pool as the view shows it: limits, calls, hold; its parked tasks are counted in later. */
function poolEntry(row: QueuePoolRow, parts: QueueViewParts): AdminQueuePool {
  const limits = parts.limitsOf(routeIdOf({ provider: row.provider, upstreamModel: row.upstream_model }));
  const facts = {
    inFlight: row.in_flight,
    inWindow: row.in_window,
    oldestInWindow: row.oldest_in_window,
    sinceQuota: row.since_quota,
  };
  return {
    pool: row.pool,
    key: row.key_hash,
    key_names: [],
    max_in_flight: limits.maxInFlight ?? null,
    per_minute: configuredPerMinute(limits) ?? null,
    learned_limit: learnedLimitNow(parts.rules, row, parts.now),
    in_flight: row.in_flight,
    calls_in_window: row.in_window + row.refused_in_window,
    refused_in_window: row.refused_in_window,
    parked: 0,
    called_back: 0,
    hold: poolHold(parts.rules, row, limits, facts, parts.now, parts.windowSpan),
    accounts: [],
  };
}

/**
 * How many of the next `turns` turns each account gets in fair turns: the account with the fewest
 * tasks in flight (those it already has, plus the turns it took) goes next, the oldest waiting
 * first between equals, until its waiting tasks are all taken.
 */
export function nextTurns(accounts: ReadonlyMap<string, AccountTally>, turns: number): Map<string, number> {
  const taken = new Map<string, number>();
  const line = [...accounts].filter(([, tally]) => tally.waiting > 0);
  for (let turn = 0; turn < turns; turn++) {
    let best: [string, AccountTally] | undefined;
    let bestLoad = Number.POSITIVE_INFINITY;
    for (const entry of line) {
      const [id, tally] = entry;
      const had = taken.get(id) ?? 0;
      if (had >= tally.waiting) continue;
      const load = had + tally.inFlight;
      if (load < bestLoad || (load === bestLoad && best && tally.oldest < best[1].oldest)) {
        best = entry;
        bestLoad = load;
      }
    }
    if (!best) break;
    taken.set(best[0], (taken.get(best[0]) ?? 0) + 1);
  }
  return taken;
}

/** Counts one group of tasks into its route (and its pool, when parked or called back). */
function countGroup(route: AdminQueueRoute, group: QueueGroup, tallies: Map<string, AccountTally>): void {
  const { n, place } = group;
  if (place === 'capacity' || place === 'turn' || place === 'retry') {
    route.waiting[place] += n;
    route.waiting.total += n;
    route.oldest_created_at = Math.min(route.oldest_created_at ?? group.oldest, group.oldest);
    if (place === 'retry')
      route.next_retry_at = Math.min(route.next_retry_at ?? group.next_run, group.next_run);
  } else {
    route.in_flight[place] += n;
    route.in_flight.total += n;
  }
  if (group.status === 'queued') route.queued += n;
  else route.in_progress += n;
  const tally = tallies.get(group.account_id) ?? { waiting: 0, inFlight: 0, queued: 0, oldest: group.oldest };
  if (WAITING.has(place)) tally.waiting += n;
  else tally.inFlight += n;
  if (group.status === 'queued') tally.queued += n;
  tally.oldest = Math.min(tally.oldest, group.oldest);
  tallies.set(group.account_id, tally);
}

/** The route's accounts, most waiting first, with their shares of the waiting and of the next turns. */
function accountShares(route: AdminQueueRoute, tallies: Map<string, AccountTally>): void {
  const turns = Math.min(TURNS_COUNTED, route.waiting.total);
  const taken = nextTurns(tallies, turns);
  const sorted = [...tallies].sort(
    ([a, x], [b, y]) => y.waiting - x.waiting || y.inFlight - x.inFlight || (a < b ? -1 : 1),
  );
  route.turns_counted = turns;
  route.accounts = sorted.slice(0, ACCOUNTS_LISTED).map(([id, tally]) => ({
    account_id: id,
    email: null,
    waiting: tally.waiting,
    in_flight: tally.inFlight,
    queued: tally.queued,
    waiting_share: route.waiting.total === 0 ? 0 : tally.waiting / route.waiting.total,
    next_turns: taken.get(id) ?? 0,
  }));
  route.accounts_omitted = Math.max(0, sorted.length - ACCOUNTS_LISTED);
}

/** Each pool's parked and called-back tasks, and its accounts' shares of the parked. */
function poolShares(pool: AdminQueuePool, groups: readonly QueueGroup[]): void {
  const parked = new Map<string, number>();
  for (const group of groups) {
    if (group.place === 'capacity') {
      pool.parked += group.n;
      parked.set(group.account_id, (parked.get(group.account_id) ?? 0) + group.n);
    } else if (group.place === 'turn') pool.called_back += group.n;
  }
  pool.accounts = [...parked]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .slice(0, POOL_ACCOUNTS_LISTED)
    .map(([id, n]) => ({ account_id: id, email: null, parked: n, share: n / pool.parked }));
}

/**
 * The queue as the operator sees it, from the store's counts: routes (with tasks or pools) most
 * waiting first, each with its pools and accounts. Emails, key names and circuits are the edge's.
 */
export function assembleQueue(
  groups: readonly QueueGroup[],
  pools: readonly QueuePoolRow[],
  parts: QueueViewParts,
): AdminQueue {
  const routes = new Map<string, AdminQueueRoute>();
  const routeOf = (provider: string, upstreamModel: string) => {
    const id = routeIdOf({ provider, upstreamModel });
    const known = routes.get(id) ?? emptyRoute(provider, upstreamModel);
    routes.set(id, known);
    return known;
  };
  const tallies = new Map<string, Map<string, AccountTally>>();
  for (const group of groups) {
    const route = routeOf(group.provider, group.upstream_model);
    const own = tallies.get(route.route) ?? new Map<string, AccountTally>();
    tallies.set(route.route, own);
    countGroup(route, group, own);
  }
  for (const row of pools) routeOf(row.provider, row.upstream_model).pools.push(poolEntry(row, parts));
  const totals = { waiting: 0, in_flight: 0, queued: 0, in_progress: 0 };
  for (const route of routes.values()) {
    accountShares(route, tallies.get(route.route) ?? new Map());
    for (const pool of route.pools)
      poolShares(
        pool,
        groups.filter((group) => group.pool === pool.pool),
      );
    totals.waiting += route.waiting.total;
    totals.in_flight += route.in_flight.total;
    totals.queued += route.queued;
    totals.in_progress += route.in_progress;
  }
  const list = [...routes.values()].sort(
    (a, b) =>
      b.waiting.total - a.waiting.total ||
      b.in_flight.total - a.in_flight.total ||
      (a.route < b.route ? -1 : 1),
  );
  return { now: parts.now, totals, routes: list };
}
