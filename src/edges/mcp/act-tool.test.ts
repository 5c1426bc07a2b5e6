// act_on_image and the seed argument through a real MCP client over the in-memory transport, with a
// scripted Atelier client: what they send to the API and how they answer. test/mcp/mcp-actions.test.ts
// runs the actions against the real app over stdio and remote MCP.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connect, scriptedClient, task, textOf } from '../../../test/fakes/mcp/in-memory-mcp.js';
import { type ActionRequest, AtelierApiError, type GenerateRequest } from '../client/atelier-client.js';

const done = (id: string, extra: Record<string, unknown> = {}) =>
  task(id, 'completed', 100, { imageUrl: `http://atelier.test/files/results/${id}.png`, ...extra });

describe('act_on_image and seeds (in-memory)', () => {
  it('posts the action on the id with only the given fields; wait returns the new version with its seed', async () => {
    const sent: Array<[string, ActionRequest]> = [];
    const { mcp, close } = await connect(
      scriptedClient({
        act: async (id, request) => {
          sent.push([id, request]);
          return { task_ids: ['tsk_2'], email: 'a@b.c' };
        },
        getTasks: async () => ({ tasks: [done('tsk_2', { parentTaskId: 'tsk_1', seed: 77 })] }),
      }),
    );
    const result = (await mcp.callTool({
      name: 'act_on_image',
      arguments: { id: 'tsk_1', action: 'upscale', scale: 4, wait: 10 },
    })) as CallToolResult;
    assert.equal(result.isError, undefined, textOf(result));
    assert.deepEqual(sent, [['tsk_1', { action: 'upscale', scale: 4 }]]);
    const structured = result.structuredContent as { finished: boolean; hint: string; tasks: unknown[] };
    assert.equal(structured.finished, true);
    assert.match(structured.hint, /version of tsk_1 made by upscale.*list_versions/);
    const links = result.content.filter((block) => block.type === 'resource_link');
    assert.deepEqual(
      links.map((link) => (link as { uri: string }).uri),
      ['http://atelier.test/files/results/tsk_2.png'],
    );
    assert.match(textOf(result), /Task tsk_2 completed \(seed 77\): http:\/\/atelier\.test/);

    await mcp.callTool({
      name: 'act_on_image',
      arguments: { id: 'gen_1', action: 'expand', aspect: '16:9', seed: 5, model: 'expand' },
    });
    await mcp.callTool({
      name: 'act_on_image',
      arguments: { id: 'gen_1', action: 'vary', strength: 'strong', count: 2 },
    });
    assert.deepEqual(sent.slice(1), [
      ['gen_1', { action: 'expand', aspect: '16:9', seed: 5, model: 'expand' }],
      ['gen_1', { action: 'vary', strength: 'strong', count: 2 }],
    ]);
    await close();
  });

  it("the API's refusals are tool errors, in plain and task-augmented calls", async () => {
    const { mcp, close } = await connect(
      scriptedClient({
        act: async (id, request) => {
          if (id === 'tsk_theirs') throw new AtelierApiError(404, 'not_found', 'Generation not found');
          throw new AtelierApiError(
            400,
            'invalid_request',
            `action ${request.action} is not configured on this deployment`,
          );
        },
      }),
    );
    const foreign = (await mcp.callTool({
      name: 'act_on_image',
      arguments: { id: 'tsk_theirs', action: 'vary' },
    })) as CallToolResult;
    assert.equal(foreign.isError, true);
    assert.match(textOf(foreign), /^not_found \(HTTP 404\): Generation not found/);
    const unconfigured = (await mcp.callTool({
      name: 'act_on_image',
      arguments: { id: 'tsk_1', action: 'expand' },
    })) as CallToolResult;
    assert.equal(unconfigured.isError, true);
    assert.match(textOf(unconfigured), /^invalid_request \(HTTP 400\): action expand is not configured/);

    const { task: created } = await mcp.experimental.tasks
      .callToolStream({ name: 'act_on_image', arguments: { id: 'tsk_1', action: 'upscale' } }, undefined, {
        task: {},
      })
      [Symbol.asyncIterator]()
      .next()
      .then(({ value }) => value as { task: { status: string; statusMessage?: string } });
    assert.equal(created.status, 'failed');
    assert.match(String(created.statusMessage), /action upscale is not configured/);
    await close();
  });

  it('arguments outside the schema are refused before any call: action, scale, factor, seed', async () => {
    let calls = 0;
    const { mcp, close } = await connect(
      scriptedClient({
        act: async () => {
          calls++;
          return { task_ids: [], email: 'a@b.c' };
        },
      }),
    );
    for (const [args, field] of [
      [{ id: 'tsk_1', action: 'zoom' }, /action/],
      [{ id: 'tsk_1', action: 'upscale', scale: 3 }, /scale/],
      [{ id: 'tsk_1', action: 'expand', factor: 2.5 }, /factor/],
      [{ id: 'tsk_1', action: 'reroll', seed: 2 ** 31 }, /seed/],
      [{ id: 'tsk_1', action: 'reroll', seed: 1.5 }, /seed/],
      [{ action: 'reroll' }, /id/],
    ] as const) {
      const result = (await mcp.callTool({ name: 'act_on_image', arguments: args })) as CallToolResult;
      assert.equal(result.isError, true, JSON.stringify(args));
      assert.match(textOf(result), field);
    }
    assert.equal(calls, 0);
    await close();
  });

  it('generate_image and refine_image pass a seed through', async () => {
    const sent: GenerateRequest[] = [];
    const { mcp, close } = await connect(
      scriptedClient({
        generate: async (request) => {
          sent.push(request);
          return { task_ids: ['tsk_9'], email: 'a@b.c' };
        },
      }),
    );
    await mcp.callTool({ name: 'generate_image', arguments: { prompt: 'a fox', seed: 0 } });
    await mcp.callTool({
      name: 'refine_image',
      arguments: { work_id: 'tsk_1', instruction: 'blue', seed: 42 },
    });
    assert.deepEqual(sent, [
      { prompt: 'a fox', seed: 0 },
      { prompt: 'blue', instruction: 'blue', parentId: 'tsk_1', seed: 42 },
    ]);
    await close();
  });

  it('the description copies no catalog: it points to list_models, and listing reads no catalog', async () => {
    let read = 0;
    const { mcp, close } = await connect(
      scriptedClient({
        models: async () => {
          read += 1;
          return { object: 'list', data: [], default_model: 'x', actions: [] } as never;
        },
      }),
    );
    const description =
      (await mcp.listTools()).tools.find((tool) => tool.name === 'act_on_image')?.description ?? '';
    assert.match(description, /list_models \(its actions\)/);
    assert.doesNotMatch(description, /This deployment offers/);
    assert.equal(read, 0, 'tools/list makes no API call');
    await close();
  });
});
