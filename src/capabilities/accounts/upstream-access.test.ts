import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidInput } from '../../base/domain/errors.js';
import { DEFAULT_CATALOG, DEFAULT_MODEL_ID, parseCatalog } from '../catalog/index.js';
import type { ImageProvider, ProviderRegistry } from '../providers/index.js';
import { createUpstreamAccess } from './upstream-access.js';

/** A registry of named providers that need a key or not (only `name` and `requiresKey` are read here). */
function registry(
  providers: Record<string, boolean>,
  deploymentKeys: Record<string, string | undefined> = {},
): ProviderRegistry {
  return {
    get: (name) =>
      name in providers ? ({ name, requiresKey: providers[name] } as unknown as ImageProvider) : undefined,
    names: () => Object.keys(providers),
    deploymentKeys,
  };
}

/** The default catalog with its default model served by `provider`. */
function catalogOn(provider: string, known: string[]) {
  const models = DEFAULT_CATALOG.models.map((model) =>
    model.id === DEFAULT_MODEL_ID ? { ...model, provider } : model,
  );
  return parseCatalog({ ...DEFAULT_CATALOG, models }, known);
}

function access(options: {
  defaultProvider: string;
  providers: Record<string, boolean>;
  deploymentKeys?: Record<string, string | undefined>;
  ownKeys?: Record<string, string>;
  pooledKeys?: Record<string, string>;
}) {
  const own = options.ownKeys ?? {};
  const deployment = options.deploymentKeys ?? {};
  return createUpstreamAccess({
    catalog: catalogOn(options.defaultProvider, Object.keys(options.providers)),
    providers: registry(options.providers, deployment),
    keys: { resolve: async (_accountId, provider) => own[provider] ?? deployment[provider] ?? null },
    ownKeyProviders: async () => Object.keys(own),
    ...(options.pooledKeys ? { pooledKey: async (provider: string) => options.pooledKeys?.[provider] } : {}),
  });
}

describe('upstream access: has_key and the providers that take a key', () => {
  test('has_key: a provider needing no key, an own key or a deployment key; else false', async () => {
    const both = { local: false, gemini: true };
    assert.equal(await access({ defaultProvider: 'local', providers: both }).hasKey('acc'), true);
    assert.equal(await access({ defaultProvider: 'gemini', providers: both }).hasKey('acc'), false);
    const own = access({ defaultProvider: 'gemini', providers: both, ownKeys: { gemini: 'k' } });
    assert.equal(await own.hasKey('acc'), true);
    const deployment = access({
      defaultProvider: 'gemini',
      providers: both,
      deploymentKeys: { gemini: 'd' },
    });
    assert.equal(await deployment.hasKey('acc'), true);
  });

  test('keyed providers: the known upstreams and any configured one needing a key, never one that needs none', () => {
    const upstream = access({
      defaultProvider: 'local',
      providers: { local: false, gemini: true, 'in-house': true, openai: false },
    });
    assert.deepEqual(upstream.keyedProviders(), ['gemini', 'in-house', 'replicate']);
    assert.equal(upstream.requireKeyedProvider('in-house'), 'in-house');
    assert.throws(
      () => upstream.requireKeyedProvider('local'),
      (error: unknown) =>
        error instanceof InvalidInput &&
        error.field === 'provider' &&
        error.message === 'provider must be one of gemini, in-house, replicate',
    );
  });

  test('overview: the default provider, whether it needs a key, and who holds one per provider', async () => {
    const upstream = access({
      defaultProvider: 'gemini',
      providers: { local: false, gemini: true },
      deploymentKeys: { openai: 'd' },
      ownKeys: { gemini: 'k' },
    });
    assert.deepEqual(await upstream.overview('acc'), {
      default_provider: 'gemini',
      key_required: true,
      providers: [
        { name: 'gemini', configured: true, own_key: true, deployment_key: false },
        { name: 'openai', configured: false, own_key: false, deployment_key: true },
        { name: 'replicate', configured: false, own_key: false, deployment_key: false },
      ],
    });
  });

  test('overview: deployment_key follows the key pools (a key added, none left in service), not the environment alone', async () => {
    const upstream = access({
      defaultProvider: 'gemini',
      providers: { local: false, gemini: true, openai: true },
      deploymentKeys: { gemini: 'env-key-taken-out' },
      pooledKeys: { openai: 'pooled' },
    });
    const keyed = (await upstream.overview('acc')).providers.map((p) => [p.name, p.deployment_key]);
    assert.deepEqual(keyed, [
      ['gemini', false],
      ['openai', true],
      ['replicate', false],
    ]);
  });
});
