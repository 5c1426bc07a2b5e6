import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { routeIdOf } from '../../catalog/index.js';
import { routeIdOfRow } from '../task-route.js';
import { capacityPool, routeLimits, siblingPools } from './capacity-pool.js';

describe('capacity pools by route id', () => {
  test("a task's route id is its catalog route's, and its pools' ids begin with it", () => {
    const route = routeIdOf({ provider: 'openai', upstreamModel: 'gpt-image-1.5' });
    assert.equal(route, 'openai/gpt-image-1.5');
    assert.equal(routeIdOfRow({ provider: 'openai', upstream_model: 'gpt-image-1.5' }), route);
    const pool = { ...capacityPool('openai', 'gpt-image-1.5', null, {}), siblings: ['k2'] };
    assert.equal(pool.id, `${route}/none`);
    assert.deepEqual(
      siblingPools(pool).map((sibling) => sibling.id),
      [`${route}/k2`],
    );
  });

  test("the catalog's limits are found by route id, a route named twice keeping each limit's smaller value", () => {
    const limitsOf = routeLimits([
      {
        provider: 'openai',
        upstreamModel: 'gpt-image-1.5',
        capacity: { maxInFlight: 4 },
        fallbacks: [{ provider: 'gemini', upstreamModel: 'flash', capacity: { requestsPerMinute: 30 } }],
      },
      { provider: 'gemini', upstreamModel: 'flash', capacity: { maxInFlight: 2, requestsPerMinute: 60 } },
    ]);
    assert.equal(limitsOf('openai/gpt-image-1.5').maxInFlight, 4);
    assert.deepEqual(limitsOf('gemini/flash'), {
      maxInFlight: 2,
      requestsPerMinute: 30,
      imagesPerMinute: undefined,
    });
    assert.deepEqual(limitsOf('fal/unknown'), {});
  });
});
