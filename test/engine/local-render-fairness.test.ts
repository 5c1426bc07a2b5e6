import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '../../src/base/runtime/clock.js';
import { createLocalProvider } from '../../src/capabilities/providers/local-provider.js';
import type { ImageProvider } from '../../src/capabilities/providers/provider.js';
import { type Core, createCore } from '../../src/core.js';
import { removeTestData } from '../support/test-database.js';
import {
  allEnded,
  capacityConfig,
  capacityOverrides,
  notCompleted,
  submitBurst,
} from './capacity-fixtures.js';

// The `local` renderer's CPU pool (one slot here) is shared by accounts in turn: an account that
// submits one image behind another account's backlog is rendered within a few renders, not after
// the backlog. The order is the renderer's own: with one slot, renders finish in the order they start,
// and with no latency every poll renders (it asks for a slot at once).

interface Renders {
  /** Prompts of the finished renders, in order. */
  done: string[];
  /** Per image (`prompt#index`), how many renders had finished when it first asked for a slot. */
  askedAt: Map<string, number>;
  /** How many images were waiting for (or holding) the slot when the light one asked. */
  waitingWhenLightAsked: number;
}

/** The local renderer with one render slot, recording when each render asks for a slot and ends. */
function recordingLocalProvider(renders: Renders, onRender: () => void): ImageProvider {
  const local = createLocalProvider({ clock: systemClock, latencyMs: 0, renderSlots: 1 });
  const { done: rendered, askedAt } = renders;
  return {
    ...local,
    async poll(request) {
      const image = `${request.prompt}#${request.index}`;
      if (!askedAt.has(image)) {
        if (image.startsWith('light')) renders.waitingWhenLightAsked = askedAt.size - rendered.length;
        askedAt.set(image, rendered.length);
      }
      const outcome = await local.poll(request);
      if (outcome.kind === 'done') {
        rendered.push(request.prompt);
        onRender();
      }
      return outcome;
    },
  };
}

test('local renderer: a second account is rendered within a few renders behind another account’s backlog', async (t) => {
  const config = await capacityConfig('local', 'local-image', undefined);
  const renders: Renders = { done: [], askedAt: new Map(), waitingWhenLightAsked: 0 };
  const rendered = renders.done;
  let firstRender = () => {};
  const started = new Promise<void>((resolve) => {
    firstRender = resolve;
  });
  let core: Core | undefined;
  try {
    core = await createCore(config, capacityOverrides(recordingLocalProvider(renders, () => firstRender())));
    const heavy = await submitBurst(core, 'heavy', 32);
    core.engine.start();
    // The backlog is rendering (its first image done, the others due) when the light account submits.
    await started;
    const light = await submitBurst(core, 'light', 1);
    const lightRows = await allEnded([core], light.accountId, light.taskIds);
    const heavyRows = await allEnded([core], heavy.accountId, heavy.taskIds);
    assert.deepEqual(notCompleted([...lightRows, ...heavyRows]), []);
    const order = rendered.map((prompt) => (prompt.startsWith('light') ? 'L' : 'H'));
    const askedAt = renders.askedAt.get('light burst 0#0') ?? -1;
    t.diagnostic(
      `render order: ${order.join('')} (the light image asked for a slot after ${askedAt}, behind ${renders.waitingWhenLightAsked})`,
    );
    // A backlog was waiting for the slot; of it, at most the one rendering and the one whose turn
    // came first end before the light image (one more if a render ended but was not yet recorded
    // when the light image asked).
    assert.ok(
      renders.waitingWhenLightAsked >= 4,
      `only ${renders.waitingWhenLightAsked} renders were waiting`,
    );
    const heavyAfter = order.indexOf('L') - askedAt;
    assert.ok(heavyAfter <= 3, `${heavyAfter} heavy renders ended after the light image asked for a slot`);
  } finally {
    await core?.close(500);
    await removeTestData(config);
  }
});
