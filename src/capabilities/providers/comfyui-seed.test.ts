import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type FakeComfyUI, startFakeComfyUI } from '../../../test/fakes/providers/fake-comfyui.js';
import { providerRequest } from '../../../test/fakes/providers/provider-request.js';
import { createComfyUIProvider } from './comfyui-provider.js';
import { seedForTask } from './replicate-inputs.js';

const WORKFLOWS = fileURLToPath(new URL('../../../catalogs/', import.meta.url));

describe('comfyui: the seed of the shipped SDXL workflow', () => {
  let fake: FakeComfyUI;
  before(async () => {
    fake = await startFakeComfyUI();
  });
  after(() => fake.close());
  const provider = () =>
    createComfyUIProvider({ urls: [fake.baseUrl], workflowDir: WORKFLOWS, requestTimeoutMs: 10_000 });
  /** The KSampler's `seed` of the last prompt queued. */
  const queuedSeed = () =>
    Object.values(fake.queued.at(-1)?.prompt ?? {}).find((node) => node.class_type === 'KSampler')?.inputs
      .seed;

  test("the request's seed is the KSampler's seed; without one, the task's own (stable) seed", async () => {
    const p = provider();
    const seeded = providerRequest({ upstreamModel: 'comfyui/sdxl-t2i.json', apiKey: null, seed: 31_337 });
    assert.equal((await p.submit(seeded)).kind, 'pending');
    assert.equal(queuedSeed(), 31_337);
    const unseeded = providerRequest({ upstreamModel: 'comfyui/sdxl-t2i.json', apiKey: null });
    assert.equal((await p.submit(unseeded)).kind, 'pending');
    assert.equal(queuedSeed(), seedForTask(unseeded.taskId, { minimum: 0, maximum: 2 ** 32 - 1 }));
    assert.notEqual(queuedSeed(), 156680208700286, "the workflow file's own seed is replaced");
  });
});
