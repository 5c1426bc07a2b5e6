import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { connect, scriptedClient, task, textOf } from '../../../test/fakes/mcp/in-memory-mcp.js';
import { AtelierApiError, type TaskRecord } from '../client/atelier-client.js';

/** The same MCP tasks over any transport: here the in-memory one, with a scripted API client. */
describe('MCP tasks (in-memory)', () => {
  it('cancels every unfinished Atelier task; one that finished meanwhile (409) keeps its result', async () => {
    const records = new Map<string, TaskRecord>([
      ['tsk_a', task('tsk_a', 'in_progress', 30)],
      ['tsk_b', task('tsk_b', 'queued', 0)],
    ]);
    const canceled: string[] = [];
    const client = scriptedClient({
      generate: async () => ({ task_ids: ['tsk_a', 'tsk_b'], email: 'me@example.test' }),
      getTasks: async (ids) => ({ tasks: ids.map((id) => records.get(id) ?? task(id, 'failed', 0)) }),
      cancelTask: async (id) => {
        canceled.push(id);
        if (id === 'tsk_a') {
          // It finished just before the cancel arrived.
          records.set(
            id,
            task(id, 'completed', 100, { imageUrl: 'http://atelier.test/files/results/a.png' }),
          );
          throw new AtelierApiError(409, 'conflict', 'Task already completed; it cannot be canceled');
        }
        const done = task(id, 'failed', 0, { error: 'Canceled' });
        records.set(id, done);
        return done;
      },
      userStatus: async () => ({ email: 'me@example.test', tier: 'pro', has_key: true }),
    });
    const { mcp, close } = await connect(client);
    try {
      const created = await mcp.request(
        {
          method: 'tools/call',
          params: { name: 'generate_image', arguments: { prompt: 'p', count: 2 }, task: {} },
        },
        CreateTaskResultSchema,
      );
      const cancelled = await mcp.experimental.tasks.cancelTask(created.task.taskId);
      assert.equal(cancelled.status, 'cancelled');
      assert.deepEqual(canceled, ['tsk_a', 'tsk_b']);
      const result = await mcp.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
      assert.match(textOf(result), /1 of 2 task\(s\) completed, 1 failed \(Canceled\)/);
      assert.equal(result.content.filter((block) => block.type === 'resource_link').length, 1);
    } finally {
      await close();
    }
  });

  it('a refused generation answers a failed task whose result is the tool error with the API type', async () => {
    const client = scriptedClient({
      generate: async () => {
        throw new AtelierApiError(400, 'invalid_request', 'model flash does not support mode fusion');
      },
    });
    const { mcp, close } = await connect(client);
    try {
      const created = await mcp.request(
        {
          method: 'tools/call',
          params: { name: 'generate_image', arguments: { prompt: 'p', mode: 'fusion' }, task: {} },
        },
        CreateTaskResultSchema,
      );
      assert.equal(created.task.status, 'failed');
      const polled = await mcp.experimental.tasks.getTask(created.task.taskId);
      assert.equal(polled.status, 'failed');
      assert.match(polled.statusMessage ?? '', /^invalid_request \(HTTP 400\)/);
      const result = await mcp.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
      assert.equal(result.isError, true);
      assert.match(
        textOf(result),
        /^invalid_request \(HTTP 400\): model flash does not support mode fusion\n/,
      );
    } finally {
      await close();
    }
  });
});
