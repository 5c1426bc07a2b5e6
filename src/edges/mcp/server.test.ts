// The tools' logic through a real MCP client over the SDK's in-memory transport, with a scripted
// Atelier client, a fake clock and a fake thumbnailer. mcp-server.test.ts covers the real thing;
// upload_reference_image is in upload-tool.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { connect, scriptedClient, task, textOf } from '../../../test/fakes/mcp/in-memory-mcp.js';
import { AtelierApiError, AtelierConnectionError, type TaskRecord } from '../client/atelier-client.js';
import { READ_TOOLS } from './read-only.js';

describe('MCP tools (in-memory)', () => {
  it('lists exactly the eleven tools, each with an input and an output schema and an icon', async () => {
    const { mcp, close } = await connect(scriptedClient({}));
    const { tools } = await mcp.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'act_on_image',
      'batch_get_tasks',
      'generate_image',
      'get_account_status',
      'get_task',
      'list_models',
      'list_my_generations',
      'list_versions',
      'quote_image',
      'refine_image',
      'upload_reference_image',
    ]);
    for (const tool of tools) {
      assert.match(tool.icons?.[0]?.src ?? '', /^data:image\/svg\+xml;base64,/, tool.name);
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.equal(tool.outputSchema?.type, 'object', tool.name);
      const readOnly = (READ_TOOLS as readonly string[]).includes(tool.name);
      assert.equal(tool.annotations?.readOnlyHint, readOnly, tool.name);
    }
    await close();
  });

  it('generate_image without wait answers the ids at once and never polls', async () => {
    let polled = false;
    const { mcp, clock, close } = await connect(
      scriptedClient({
        generate: async () => ({ task_ids: ['tsk_1', 'tsk_2'], email: 'a@b.c' }),
        getTasks: async () => {
          polled = true;
          return { tasks: [] };
        },
      }),
    );
    const result = (await mcp.callTool({
      name: 'generate_image',
      arguments: { prompt: 'a cat', count: 2 },
    })) as CallToolResult;
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.structuredContent?.task_ids, ['tsk_1', 'tsk_2']);
    assert.equal(result.structuredContent?.finished, false);
    assert.match(String(result.structuredContent?.hint), /batch_get_tasks/);
    assert.equal(polled, false);
    assert.deepEqual(clock.sleeps, []);
    await close();
  });

  it('generate_image sends only the fields given, so server defaults apply', async () => {
    let sent: unknown;
    const { mcp, close } = await connect(
      scriptedClient({
        generate: async (request) => {
          sent = request;
          return { task_ids: ['tsk_1'], email: 'a@b.c' };
        },
      }),
    );
    await mcp.callTool({ name: 'generate_image', arguments: { prompt: 'a cat', aspect: '16:9' } });
    assert.deepEqual(sent, { prompt: 'a cat', aspect: '16:9' });
    await close();
  });

  it('generate_image with wait polls every 2 s, reports rising progress and returns finished images', async () => {
    const polls = [
      [task('tsk_1', 'queued', 0), task('tsk_2', 'in_progress', 40)],
      [task('tsk_1', 'in_progress', 50), task('tsk_2', 'in_progress', 40)],
      [
        task('tsk_1', 'completed', 100, { imageUrl: 'http://x/files/1.png' }),
        task('tsk_2', 'failed', 0, { error: 'boom' }),
      ],
    ];
    let call = 0;
    const { mcp, clock, close } = await connect(
      scriptedClient({
        generate: async () => ({ task_ids: ['tsk_1', 'tsk_2'], email: 'a@b.c' }),
        getTasks: async (ids) => {
          assert.deepEqual(ids, ['tsk_1', 'tsk_2']);
          return { tasks: polls[Math.min(call++, polls.length - 1)] ?? [] };
        },
      }),
    );
    const progress: Progress[] = [];
    const result = (await mcp.callTool(
      { name: 'generate_image', arguments: { prompt: 'a cat', count: 2, wait: 30 } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    )) as CallToolResult;

    assert.equal(result.isError, undefined);
    assert.deepEqual(clock.sleeps, [2000, 2000, 2000]);
    assert.equal(result.structuredContent?.finished, true);
    assert.deepEqual(
      (result.structuredContent?.tasks as TaskRecord[] | undefined)?.map((t) => t.status),
      ['completed', 'failed'],
    );
    assert.match(String(result.structuredContent?.hint), /1 of 2 task\(s\) completed, 1 failed \(boom\)/);
    const images = result.content.filter((block) => block.type === 'image');
    assert.equal(images.length, 1);
    assert.match(textOf(result), /Task tsk_1 completed: http:\/\/x\/files\/1\.png/);

    const values = progress.map((p) => p.progress);
    assert.deepEqual(values, [0, 20, 45, 100]);
    assert.ok(progress.every((p) => p.total === 100));
    await close();
  });

  it('generate_image keeps the ids when the wait ends before the tasks do', async () => {
    const { mcp, clock, close } = await connect(
      scriptedClient({
        generate: async () => ({ task_ids: ['tsk_1'], email: 'a@b.c' }),
        getTasks: async () => ({ tasks: [task('tsk_1', 'in_progress', 10)] }),
      }),
    );
    const result = (await mcp.callTool({
      name: 'generate_image',
      arguments: { prompt: 'p', wait: 5 },
    })) as CallToolResult;
    assert.equal(result.isError, undefined);
    assert.deepEqual(clock.sleeps, [2000, 2000, 2000]);
    assert.equal(result.structuredContent?.finished, false);
    assert.match(String(result.structuredContent?.hint), /Still running after 5 s: .*get_task/);
    await close();
  });

  it('generate_image retries a failed poll and does not turn it into a tool error', async () => {
    let call = 0;
    const { mcp, close } = await connect(
      scriptedClient({
        generate: async () => ({ task_ids: ['tsk_1'], email: 'a@b.c' }),
        getTasks: async () => {
          call++;
          if (call === 1)
            throw new AtelierConnectionError('Cannot reach Atelier at http://atelier.test: ECONNRESET');
          return { tasks: [task('tsk_1', 'completed', 100, { imageUrl: 'http://x/files/1.png' })] };
        },
      }),
    );
    const result = (await mcp.callTool({
      name: 'generate_image',
      arguments: { prompt: 'p', wait: 10 },
    })) as CallToolResult;
    assert.equal(result.isError, undefined);
    assert.equal(result.structuredContent?.finished, true);
    assert.equal(call, 2);
    await close();
  });

  it('generate_image stops polling on a 4xx but still answers the submitted ids', async () => {
    let call = 0;
    const { mcp, close } = await connect(
      scriptedClient({
        generate: async () => ({ task_ids: ['tsk_1'], email: 'a@b.c' }),
        getTasks: async () => {
          call++;
          throw new AtelierApiError(401, 'invalid_api_key', 'Invalid API key');
        },
      }),
    );
    const result = (await mcp.callTool({
      name: 'generate_image',
      arguments: { prompt: 'p', wait: 60 },
    })) as CallToolResult;
    assert.equal(result.isError, undefined);
    assert.equal(call, 1);
    assert.deepEqual(result.structuredContent?.task_ids, ['tsk_1']);
    assert.equal(result.structuredContent?.tasks, undefined);
    assert.match(String(result.structuredContent?.hint), /polling failed \(Invalid API key\)/);
    await close();
  });

  it('reports API errors as tool errors with type, status, message and advice', async () => {
    const { mcp, close } = await connect(
      scriptedClient({
        generate: async () => {
          throw new AtelierApiError(400, 'invalid_request', 'model flash does not support mode fusion');
        },
        userStatus: async () => {
          throw new AtelierConnectionError('Cannot reach Atelier at http://atelier.test: ECONNREFUSED');
        },
      }),
    );
    const generated = (await mcp.callTool({
      name: 'generate_image',
      arguments: { prompt: 'p', model: 'flash', mode: 'fusion' },
    })) as CallToolResult;
    assert.equal(generated.isError, true);
    assert.match(
      textOf(generated),
      /^invalid_request \(HTTP 400\): model flash does not support mode fusion\nCorrect/,
    );

    const status = (await mcp.callTool({ name: 'get_account_status', arguments: {} })) as CallToolResult;
    assert.equal(status.isError, true);
    assert.match(textOf(status), /^connection_failed: .*ECONNREFUSED[\s\S]*ATELIER_BASE_URL/);
    await close();
  });

  it('batch_get_tasks attaches thumbnails for completed tasks and explains missing ones', async () => {
    const tasks = [
      task('tsk_2', 'completed', 100, { imageUrl: 'http://x/files/2.png' }),
      task('tsk_1', 'completed', 100, { imageUrl: 'http://x/files/broken.png' }),
      task('tsk_3', 'queued', 0),
    ];
    const { mcp, close } = await connect(scriptedClient({ getTasks: async () => ({ tasks }) }));
    const result = (await mcp.callTool({
      name: 'batch_get_tasks',
      arguments: { task_ids: ['tsk_2', 'tsk_1', 'tsk_3'] },
    })) as CallToolResult;
    assert.deepEqual(result.structuredContent, { tasks });
    assert.equal(result.content.filter((block) => block.type === 'image').length, 1);
    assert.match(
      textOf(result),
      /tsk_1 completed: http:\/\/x\/files\/broken\.png \(no thumbnail: could not download/,
    );
    assert.match(textOf(result), /Task tsk_3 is still queued; call get_task again in 2-5 seconds/);
    await close();
  });

  it('batch_get_tasks refuses more than 20 ids before calling the API', async () => {
    const { mcp, close } = await connect(scriptedClient({}));
    const ids = Array.from({ length: 21 }, (_, i) => `tsk_${i}`);
    const result = (await mcp.callTool({
      name: 'batch_get_tasks',
      arguments: { task_ids: ids },
    })) as CallToolResult;
    assert.equal(result.isError, true);
    assert.match(textOf(result), /task_ids/);
    await close();
  });
});
