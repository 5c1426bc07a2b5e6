// The actions scenario the stdio and remote MCP tests share (issue 45): make an image with a seed, act
// on it with each action through act_on_image on the local renderer, follow each new version's
// lineage in history and list_versions; then the refusals (another account's work reads as an
// unknown one; arguments outside the schema).
import assert from 'node:assert/strict';
import type { HistoryItem, TaskRecord } from '../../src/edges/client/atelier-client.js';
import { bearer, pollUntilFinal, submitGenerate } from '../support/api-helpers.js';
import { finished, historyItemOf, type RefineContext, textOf } from './refine-scenario.js';

/** A history item as issue 45 extends it: the action that made the work, its options and seed. */
type ActedItem = HistoryItem & { action?: string | null; actionOptions?: unknown; seed?: number | null };
type SeededTask = TaskRecord & { seed?: number | null };

const SEED = 1234;

/** Each action with its arguments, and what its history item records of them. */
const ACTIONS: Array<{ args: Record<string, unknown>; options: Record<string, unknown> | null }> = [
  { args: { action: 'upscale', scale: 2 }, options: { scale: 2 } },
  { args: { action: 'vary', strength: 'strong' }, options: { strength: 'strong' } },
  { args: { action: 'expand', factor: 1.5 }, options: { factor: 1.5 } },
  { args: { action: 'remove_background' }, options: null },
  { args: { action: 'reroll' }, options: null },
];

/** Generate with a seed, then every action on that image: each a new version naming parent and action. */
export async function actOnEveryAction(ctx: RefineContext): Promise<void> {
  const first = finished(
    await ctx.call('generate_image', { prompt: 'a green kite', imageSize: '1K', seed: SEED, wait: 60 }),
  );
  const firstTask = first.task as SeededTask;
  assert.equal(firstTask.seed, SEED, 'the task record names the seed asked for');
  const firstItem = (await historyItemOf(ctx, String(firstTask.imageUrl))) as ActedItem;
  assert.equal(firstItem.seed, SEED);

  for (const { args, options } of ACTIONS) {
    const action = String(args.action);
    // reroll names the work by its generation id; the others name the image by its task id.
    const id = action === 'reroll' ? firstItem.id : firstTask.task_id;
    const result = await ctx.call('act_on_image', { id, ...args, wait: 60 });
    const made = finished(result);
    const task = made.task as SeededTask;
    assert.equal(task.parentTaskId, firstTask.task_id, `${action}: the task names the image acted on`);
    assert.match(made.hint, new RegExp(`made by ${action}.*list_versions`));
    const item = (await historyItemOf(ctx, String(task.imageUrl))) as ActedItem;
    assert.equal(item.parentId, firstItem.id, action);
    assert.equal(item.parentTaskId, firstTask.task_id, action);
    assert.equal(item.action, action);
    if (options) assert.deepEqual(item.actionOptions, options, action);
    if (action === 'upscale') {
      assert.equal(task.width, 2 * Number(firstTask.width), 'upscale ×2: twice the width');
      assert.equal(task.height, 2 * Number(firstTask.height), 'upscale ×2: twice the height');
    }
    if (action === 'expand') assert.ok(Number(task.width) > Number(firstTask.width), 'a larger canvas');
    if (action === 'remove_background') assert.equal(task.contentType, 'image/png');
    if (action === 'reroll') {
      assert.equal(typeof task.seed, 'number');
      assert.notEqual(task.seed, SEED, 'reroll draws a new seed');
      assert.equal(item.model, firstItem.model, "reroll runs the work's own model");
    }
    if (typeof task.seed === 'number') assert.match(textOf(result), new RegExp(`\\(seed ${task.seed}\\)`));
  }

  const listed = await ctx.call('list_versions', { work_id: firstTask.task_id });
  assert.equal(listed.isError, undefined, textOf(listed));
  const versions = (listed.structuredContent as { versions: ActedItem[] }).versions;
  assert.deepEqual(
    versions.map((v) => v.action ?? null).sort(),
    [null, ...ACTIONS.map(({ args }) => String(args.action))].sort(),
  );
}

/** Another account's image or work reads exactly as an unknown id; bad arguments are clear tool errors. */
export async function actionRefusals(ctx: RefineContext): Promise<void> {
  const secret = 'the other account’s private greenhouse';
  const [foreignTask] = await submitGenerate(ctx.app, ctx.otherKey, { prompt: secret, imageSize: '1K' });
  assert.ok(foreignTask);
  const { final } = await pollUntilFinal(ctx.app, ctx.otherKey, foreignTask);
  assert.equal(final.status, 'completed');
  const foreignItems = (
    await ctx.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(ctx.otherKey) })
  ).json().items as HistoryItem[];
  const foreignWork = foreignItems[0]?.id;
  assert.ok(foreignWork);

  const refused = async (id: string) => {
    const result = await ctx.call('act_on_image', { id, action: 'upscale', wait: 5 });
    assert.equal(result.isError, true, id);
    const text = textOf(result);
    assert.match(text, /^not_found \(HTTP 404\)/, text);
    assert.ok(!text.includes(secret) && !text.includes(String(final.imageUrl)), text);
    return text;
  };
  assert.equal(await refused(foreignTask), await refused('tsk_unknown000000000000'));
  assert.equal(await refused(foreignWork), await refused('gen_unknown000000000000'));

  for (const [args, field] of [
    [{ id: foreignTask, action: 'zoom' }, /action/],
    [{ id: foreignTask, action: 'upscale', scale: 8 }, /scale/],
    [{ id: foreignTask, action: 'expand', factor: 3 }, /factor/],
    [{ id: foreignTask, action: 'reroll', seed: -1 }, /seed/],
  ] as const) {
    const result = await ctx.call('act_on_image', args);
    assert.equal(result.isError, true, JSON.stringify(args));
    assert.match(textOf(result), field);
  }
  // Nothing was made for the refused calls: the other account still has its one work.
  const after = (
    await ctx.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(ctx.otherKey) })
  ).json().items as HistoryItem[];
  assert.equal(after.length, 1);
}
