// The refine scenario the stdio and remote MCP tests share (issue 44): make an image, refine it twice
// by id with instructions, follow the lineage in history, the versions route and list_versions; then
// the refusals (another account's work, an unknown id, bad arguments) say nothing about the other
// account.
import assert from 'node:assert/strict';
import type { CallToolResult, ResourceLink } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import type { HistoryItem, TaskRecord } from '../../src/edges/client/atelier-client.js';
import { bearer, pollUntilFinal, submitGenerate } from '../support/api-helpers.js';

export interface RefineContext {
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  app: FastifyInstance;
  apiKey: string;
  /** A second account's key, whose works the MCP server's key must not reach. */
  otherKey: string;
}

type Made = { structured: { task_ids: string[]; finished: boolean; tasks: TaskRecord[]; hint: string } };

export function textOf(result: CallToolResult): string {
  return result.content
    .filter((block) => block.type === 'text')
    .map((block) => (block as { text: string }).text)
    .join('\n');
}

/** A finished one-image generation tool call: its one completed task, with link and thumbnail. */
export function finished(result: CallToolResult): Made['structured'] & { task: TaskRecord } {
  assert.equal(result.isError, undefined, textOf(result));
  const structured = result.structuredContent as Made['structured'];
  assert.equal(structured.finished, true, JSON.stringify(structured));
  const [task] = structured.tasks;
  assert.ok(task && task.status === 'completed' && task.imageUrl, JSON.stringify(task));
  const links = result.content.filter((block): block is ResourceLink => block.type === 'resource_link');
  assert.deepEqual(
    links.map((link) => link.uri),
    [task.imageUrl],
  );
  assert.equal(result.content.filter((block) => block.type === 'image').length, 1, 'a thumbnail');
  return { ...structured, task };
}

export async function historyItemOf(ctx: RefineContext, imageUrl: string): Promise<HistoryItem> {
  const page = await ctx.call('list_my_generations', { limit: 50 });
  assert.equal(page.isError, undefined, textOf(page));
  const items = (page.structuredContent as { items: HistoryItem[] }).items;
  const item = items.find((i) => i.images.includes(imageUrl));
  assert.ok(item, `history lists ${imageUrl}`);
  return item;
}

/** Generate, refine by task id, refine by generation id; each names its parent; three versions. */
export async function refineTwice(
  ctx: RefineContext,
): Promise<{ taskIds: string[]; generationIds: string[] }> {
  const first = finished(
    await ctx.call('generate_image', {
      prompt: 'a red bicycle against a white wall',
      aspect: '3:4',
      wait: 60,
    }),
  );
  const firstItem = await historyItemOf(ctx, String(first.task.imageUrl));
  assert.equal(firstItem.parentId, undefined);

  const second = finished(
    await ctx.call('refine_image', {
      work_id: first.task.task_id,
      instruction: 'make the wall blue',
      wait: 60,
    }),
  );
  assert.equal(second.task.parentTaskId, first.task.task_id, 'the task record names the image refined');
  assert.match(second.hint, /list_versions/);
  const secondItem = await historyItemOf(ctx, String(second.task.imageUrl));
  assert.equal(secondItem.parentId, firstItem.id);
  assert.equal(secondItem.parentTaskId, first.task.task_id);
  assert.equal(secondItem.instruction, 'make the wall blue');
  assert.equal(secondItem.prompt, 'make the wall blue');
  assert.equal(secondItem.mode, 'edit');
  assert.equal(secondItem.aspect, '3:4', "the parent's shape is kept");
  assert.deepEqual(secondItem.refs, [first.task.imageUrl], "the parent's image is the reference");

  // The second refinement names the work by its generation id, as list_my_generations shows it.
  const third = finished(
    await ctx.call('refine_image', {
      work_id: secondItem.id,
      instruction: 'add a cat on the saddle',
      wait: 60,
    }),
  );
  const thirdItem = await historyItemOf(ctx, String(third.task.imageUrl));
  assert.equal(thirdItem.parentId, secondItem.id);
  assert.equal(thirdItem.parentTaskId, second.task.task_id);
  assert.equal(thirdItem.instruction, 'add a cat on the saddle');

  const generationIds = [firstItem.id, secondItem.id, thirdItem.id];
  const route = await ctx.app.inject({
    method: 'GET',
    url: `/api/v1/history/${thirdItem.id}/versions`,
    headers: bearer(ctx.apiKey),
  });
  assert.equal(route.statusCode, 200, route.body);
  assert.deepEqual(
    (route.json().versions as HistoryItem[]).map((v) => v.id),
    generationIds,
  );
  // list_versions from any version, by task id or generation id, lists the same three.
  for (const work_id of [third.task.task_id, firstItem.id]) {
    const listed = await ctx.call('list_versions', { work_id });
    assert.equal(listed.isError, undefined, textOf(listed));
    const versions = (listed.structuredContent as { versions: HistoryItem[] }).versions;
    assert.deepEqual(
      versions.map((v) => v.id),
      generationIds,
      work_id,
    );
    assert.deepEqual(
      versions.map((v) => v.parentTaskId),
      [undefined, first.task.task_id, second.task.task_id],
    );
  }
  return { taskIds: [first.task.task_id, second.task.task_id, third.task.task_id], generationIds };
}

/** Another account's work reads exactly as an unknown one; bad arguments are clear tool errors. */
export async function refusals(ctx: RefineContext): Promise<void> {
  const secret = 'the other account’s private lighthouse';
  const [foreignTask] = await submitGenerate(ctx.app, ctx.otherKey, { prompt: secret, imageSize: '1K' });
  assert.ok(foreignTask);
  const { final } = await pollUntilFinal(ctx.app, ctx.otherKey, foreignTask);
  assert.equal(final.status, 'completed');
  const foreignItems = (
    await ctx.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(ctx.otherKey) })
  ).json().items as HistoryItem[];
  const foreignWork = foreignItems[0]?.id;
  assert.ok(foreignWork);

  const refine = (work_id: string) => ctx.call('refine_image', { work_id, instruction: 'steal it', wait: 5 });
  const refused = async (work_id: string) => {
    const result = await refine(work_id);
    assert.equal(result.isError, true, work_id);
    const text = textOf(result);
    assert.match(text, /^invalid_request \(HTTP 400\): work_id names no /, text);
    assert.ok(!text.includes(secret) && !text.includes(String(final.imageUrl)), text);
    return text;
  };
  // Another account's image or work reads exactly as an unknown id of the same kind.
  assert.equal(await refused(foreignTask), await refused('tsk_unknown000000000000'));
  assert.equal(await refused(foreignWork), await refused('gen_unknown000000000000'));
  await refused('not-an-id');

  const versionsOf = async (work_id: string) => {
    const result = await ctx.call('list_versions', { work_id });
    assert.equal(result.isError, true, work_id);
    return textOf(result);
  };
  const unknownVersions = await versionsOf('gen_unknown000000000000');
  assert.match(unknownVersions, /^not_found \(HTTP 404\)/);
  assert.equal(await versionsOf(foreignWork), unknownVersions);
  assert.equal(await versionsOf(foreignTask), unknownVersions);

  // Arguments the input schema refuses: a tool error naming the field.
  for (const [args, field] of [
    [{ work_id: foreignTask, instruction: '' }, /instruction/],
    [{ instruction: 'no id' }, /work_id/],
    [{ work_id: 'tsk_x', instruction: 'x', imageSize: '8K' }, /imageSize/],
  ] as const) {
    const result = await ctx.call('refine_image', args);
    assert.equal(result.isError, true, JSON.stringify(args));
    assert.match(textOf(result), field);
  }
  // Nothing was made for the refused calls: the other account still has its one work.
  const after = (
    await ctx.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(ctx.otherKey) })
  ).json().items as HistoryItem[];
  assert.equal(after.length, 1);
}
