// Spend confirmation across api nodes (issue 46): /mcp is stateless, so the person's answer to the
// confirmation a tool call on one node asked for may be POSTed to the other node (as a load balancer
// may send it); it reaches the waiting call through the store. Two nodes on one store (two processes
// on one SQLite file, or two nodes on one PostgreSQL database), the SDK's own client.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { grantsOver } from '../support/oauth-contract.js';
import { twoNodesOnOneStore } from '../support/two-nodes.js';
import { TEST_ORIGIN } from '../support/website-session.js';
import { type AskedClient, askedClient, pricedEnv, remoteTransport } from './spend-confirmation-support.js';

describe('spend confirmation on two api nodes', () => {
  const twoNodes = twoNodesOnOneStore('mcp-confirm-nodes-', TEST_ORIGIN, pricedEnv);
  const clients: AskedClient[] = [];
  let urls: Promise<string[]> | undefined;
  /** A client of `one` whose answers go to `two` (both listening on loopback, once). */
  const across = async (bearer: string) => {
    const [one, two] = twoNodes();
    urls ??= Promise.all([
      one.app.listen({ port: 0, host: '127.0.0.1' }),
      two.app.listen({ port: 0, host: '127.0.0.1' }),
    ]);
    const [first = '', second = ''] = await urls;
    const client = await askedClient(remoteTransport(first, bearer, second));
    clients.push(client);
    return client;
  };
  const generate = async (client: AskedClient, args: Record<string, unknown>) => {
    const result = (await client.client.callTool({
      name: 'generate_image',
      arguments: args,
    })) as CallToolResult;
    return (result.structuredContent as { task_ids: string[] }).task_ids;
  };

  test('a sign-in grant asks by default above $0.50; the answer POSTed to the other node', async () => {
    const [one] = twoNodes();
    const { account } = await one.core.accounts.create({
      email: 'grant@example.test',
      password: 'pw-correct-horse',
    });
    const { tokensFor } = await grantsOver(one.core, TEST_ORIGIN);
    const host = await across((await tokensFor(account.id)).access_token);
    // 1 image at 1K: $0.06, under the default threshold: nothing asked.
    assert.equal((await generate(host, { prompt: 'cheap', imageSize: '1K' })).length, 1);
    assert.deepEqual(host.asked, []);
    // 4 at 4K: at most $0.96: asked; accepted on the other node.
    assert.equal((await generate(host, { prompt: 'dear', imageSize: '4K', count: 4 })).length, 4);
    assert.deepEqual(host.asked, ['4 images at 4K on the default model, at most $0.96 — go ahead?']);
    host.answer = 'decline';
    assert.deepEqual(await generate(host, { prompt: 'declined', imageSize: '4K', count: 4 }), []);
    assert.equal(host.asked.length, 2);
    const stored = await one.core.resources.db.selectFrom('mcp_answers').select('id').execute();
    assert.deepEqual(stored, [], 'every answer was taken');
  });

  test('an API key asks only once the account switched it on', async () => {
    const [one] = twoNodes();
    const { account, apiKey } = await one.core.accounts.create({
      email: 'key@example.test',
      password: 'pw-correct-horse',
    });
    const agent = await across(apiKey);
    assert.equal(
      (await generate(agent, { prompt: 'keys: off by default', imageSize: '4K', count: 4 })).length,
      4,
    );
    assert.deepEqual(agent.asked, []);
    await one.core.spendConfirmations.set(account.id, {
      above_micros: 100_000,
      api_keys: true,
      sign_in: true,
    });
    agent.answer = 'decline';
    assert.deepEqual(await generate(agent, { prompt: 'keys: on', imageSize: '2K', count: 1 }), []);
    assert.deepEqual(agent.asked, ['1 image at 2K on the default model, at most $0.12 — go ahead?']);
  });

  test('closes', async () => {
    for (const client of clients) await client.client.close();
  });
});
