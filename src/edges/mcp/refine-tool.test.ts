// refine_image and list_versions through a real MCP client over the in-memory transport, with a
// scripted Atelier client: what they send to the API and how they answer. test/mcp/mcp-refine.test.ts
// runs them against the real app over stdio and remote MCP.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connect, scriptedClient, task, textOf } from '../../../test/fakes/mcp/in-memory-mcp.js';
import { AtelierApiError, type GenerateRequest } from '../client/atelier-client.js';

describe('refine_image and list_versions (in-memory)', () => {
  it('refine_image is a generate with parentId and the instruction as prompt; wait returns the version', async () => {
    const sent: GenerateRequest[] = [];
    const { mcp, close } = await connect(
      scriptedClient({
        generate: async (request) => {
          sent.push(request);
          return { task_ids: ['tsk_2'], email: 'a@b.c' };
        },
        getTasks: async () => ({
          tasks: [
            task('tsk_2', 'completed', 100, {
              imageUrl: 'http://atelier.test/files/results/tsk_2.png',
              parentTaskId: 'tsk_1',
            }),
          ],
        }),
      }),
    );
    const result = (await mcp.callTool({
      name: 'refine_image',
      arguments: { work_id: 'tsk_1', instruction: 'make the sky darker', imageSize: '1K', wait: 10 },
    })) as CallToolResult;
    assert.equal(result.isError, undefined, textOf(result));
    // Omitted fields stay omitted (the parent's shape, the deployment's defaults).
    assert.deepEqual(sent, [
      {
        prompt: 'make the sky darker',
        instruction: 'make the sky darker',
        parentId: 'tsk_1',
        imageSize: '1K',
      },
    ]);
    const structured = result.structuredContent as { finished: boolean; hint: string; tasks: unknown[] };
    assert.equal(structured.finished, true);
    assert.deepEqual(structured.tasks, [
      task('tsk_2', 'completed', 100, {
        imageUrl: 'http://atelier.test/files/results/tsk_2.png',
        parentTaskId: 'tsk_1',
      }),
    ]);
    assert.match(structured.hint, /refines tsk_1.*list_versions/);
    assert.ok(result.content.some((block) => block.type === 'resource_link'));
    await close();
  });

  it("the API's refusal names work_id, the tool's field, in plain and task-augmented calls", async () => {
    const { mcp, close } = await connect(
      scriptedClient({
        generate: async () => {
          throw new AtelierApiError(400, 'invalid_request', 'parentId names no image of this account');
        },
      }),
    );
    const result = (await mcp.callTool({
      name: 'refine_image',
      arguments: { work_id: 'tsk_x', instruction: 'x' },
    })) as CallToolResult;
    assert.equal(result.isError, true);
    assert.match(textOf(result), /^invalid_request \(HTTP 400\): work_id names no image of this account\n/);
    const { task: created } = await mcp.experimental.tasks
      .callToolStream(
        { name: 'refine_image', arguments: { work_id: 'tsk_x', instruction: 'x' } },
        undefined,
        { task: {} },
      )
      [Symbol.asyncIterator]()
      .next()
      .then(({ value }) => value as { task: { status: string; statusMessage?: string } });
    assert.equal(created.status, 'failed');
    assert.match(String(created.statusMessage), /^invalid_request \(HTTP 400\): work_id names no image/);
    await close();
  });

  it('list_versions answers the versions route as it is, and its 404 as a tool error', async () => {
    const asked: string[] = [];
    const item = (id: string, prompt: string) => ({
      id,
      prompt,
      model: 'base-image-2',
      mode: 'edit',
      aspect: '1:1',
      imageSize: '1K',
      imageCount: 1,
      images: [`http://atelier.test/files/results/${id}.png`],
      refs: [],
      createdAt: 1,
    });
    const versions = [
      item('gen_1', 'a'),
      { ...item('gen_2', 'b'), parentId: 'gen_1', parentTaskId: 'tsk_1', instruction: 'b' },
    ];
    const { mcp, close } = await connect(
      scriptedClient({
        versions: async (id) => {
          asked.push(id);
          if (id === 'gen_9') throw new AtelierApiError(404, 'not_found', 'Generation not found');
          return { versions } as never;
        },
      }),
    );
    const listed = (await mcp.callTool({
      name: 'list_versions',
      arguments: { work_id: 'tsk_2' },
    })) as CallToolResult;
    assert.deepEqual(listed.structuredContent, { versions });
    const missing = (await mcp.callTool({
      name: 'list_versions',
      arguments: { work_id: 'gen_9' },
    })) as CallToolResult;
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /^not_found \(HTTP 404\): Generation not found/);
    assert.deepEqual(asked, ['tsk_2', 'gen_9']);
    await close();
  });
});
