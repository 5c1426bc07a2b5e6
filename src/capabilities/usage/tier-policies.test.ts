import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadTierPolicies, parseTierPolicies } from './tier-policies.js';

const models = ['base-image-2', 'pro'];

describe('tier policy file', () => {
  test('no file: no policies (the spec default, no server-side limits)', () => {
    assert.deepEqual(loadTierPolicies(undefined, models), {});
  });

  test('a valid file is read; tiers left out are unrestricted', () => {
    const policies = parseTierPolicies(
      { tiers: { trial: { models: ['base-image-2'], images_per_day: 5, tasks_in_flight: 1 } } },
      models,
      'test',
    );
    assert.deepEqual(policies, {
      trial: { models: ['base-image-2'], images_per_day: 5, tasks_in_flight: 1 },
    });
  });

  test('every problem is named: unknown tier, unknown field, unknown model, bad limits', () => {
    assert.throws(
      () =>
        parseTierPolicies(
          {
            tiers: {
              gold: {},
              trial: { images_per_dya: 3, images_per_month: 0, tasks_in_flight: 1.5, models: ['prp'] },
            },
          },
          models,
          'ATELIER_POLICY_FILE (p.json)',
        ),
      (error: Error) => {
        assert.match(error.message, /^ATELIER_POLICY_FILE \(p\.json\) is invalid:/);
        assert.match(error.message, /tiers: unknown tier "gold" \(tiers: trial, starter, standard, pro\)/);
        assert.match(
          error.message,
          /tiers\.trial: unknown field "images_per_dya" \(fields: models, images_per_day/,
        );
        assert.match(error.message, /tiers\.trial\.images_per_month: must be a positive integer/);
        assert.match(error.message, /tiers\.trial\.tasks_in_flight: must be a positive integer/);
        assert.match(error.message, /tiers\.trial\.models: unknown model "prp"/);
        return true;
      },
    );
    assert.throws(
      () => parseTierPolicies({ tiers: { trial: { models: ['base-image-2', 'flahs'] } } }, models, 'f'),
      /tiers\.trial\.models: unknown model "flahs" \(catalog: base-image-2, pro\)/,
    );
    assert.throws(() => parseTierPolicies({ trial: {} }, models, 'f'), /tiers/);
  });

  test('a file that cannot be read or parsed stops the start with the path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'atelier-policy-'));
    try {
      const file = join(dir, 'p.json');
      await writeFile(file, '{ not json');
      assert.throws(() => loadTierPolicies(file, models), /ATELIER_POLICY_FILE: .*p\.json is not valid JSON/);
      assert.throws(
        () => loadTierPolicies(join(dir, 'missing.json'), models),
        /missing\.json cannot be read/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
