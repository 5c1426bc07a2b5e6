// list_models, quote_image's refine quotes, the prompts, the icons and the read-only server, through a
// real MCP client over the SDK's in-memory transport with a scripted Atelier client. The remote
// endpoints (/mcp/readonly, the discovery document) are in test/mcp/remote-mcp-readonly.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connect, scriptedClient, textOf } from '../../../test/fakes/mcp/in-memory-mcp.js';
import type { ModelList } from '../client/atelier-client.js';
import { READ_TOOLS } from './read-only.js';
import { dollars } from './tools/list-models.js';

const perSize = (k1: number, k2: number, k4: number) => ({ '1K': k1, '2K': k2, '4K': k4 });
const model = (id: string, extra: Partial<ModelList['data'][number]> = {}): ModelList['data'][number] => ({
  id,
  object: 'model',
  created: 0,
  owned_by: 'local',
  name: `Model ${id}`,
  modes: ['text', 'edit'],
  aspects: ['1:1', '16:9'],
  sizes: ['1K', '2K', '4K'],
  maxCount: 4,
  maxReferences: 1,
  masks: false,
  seeds: true,
  qualities: [],
  defaultQuality: null,
  price: {
    currency: 'USD',
    published: true,
    asOf: '2026-11-01',
    source: null,
    perImage: perSize(39_000, 134_000, 240_000),
    maxPerImage: perSize(40_000, 140_000, 250_000),
    maxPerImageByQuality: {},
    perMillionTokens: null,
    maxTokensPerReference: null,
  },
  lifecycle: { released: null, deprecated: null, shutdown: null, replacement: null },
  ...extra,
});
const CATALOG: ModelList = {
  object: 'list',
  default_model: 'base',
  data: [
    model('base'),
    model('old', {
      seeds: false,
      price: null,
      qualities: ['low', 'high'],
      defaultQuality: 'low',
      lifecycle: { released: null, deprecated: '2026-10-01', shutdown: '2027-01-31', replacement: 'base' },
    }),
  ],
  actions: [{ action: 'upscale', model: 'upscale', name: 'Upscaler', scales: [2, 4], seeds: false }],
};

describe('the catalog as tools (in-memory)', () => {
  it('list_models answers GET /api/v1/models as it is, and sums it up in dollars', async () => {
    const { mcp, close } = await connect(scriptedClient({ models: async () => CATALOG }));
    const result = (await mcp.callTool({ name: 'list_models', arguments: {} })) as CallToolResult;
    assert.equal(result.isError, undefined, textOf(result));
    assert.deepEqual(result.structuredContent, CATALOG);
    const summary = (result.content[1] as { text: string }).text;
    assert.match(
      summary,
      /- base \(default\): Model base, by local; modes text\/edit; sizes 1K\/2K\/4K; up to 4/,
    );
    assert.match(summary, /per image 1K \$0\.039, 2K \$0\.134, 4K \$0\.24; at most 1K \$0\.04, 2K \$0\.14/);
    assert.match(
      summary,
      /- old: .*qualities low\/high \(default low\); no seed; price unknown; deprecated 2026-10-01, shuts down 2027-01-31, use base/,
    );
    assert.match(summary, /- upscale: Upscaler \(scale 2\/4; model upscale; no seed\)/);
    await close();
  });

  it('list_models with a model answers that model alone; an unknown id names the ones offered', async () => {
    const { mcp, close } = await connect(scriptedClient({ models: async () => CATALOG }));
    const one = (await mcp.callTool({ name: 'list_models', arguments: { model: 'old' } })) as CallToolResult;
    const data = (one.structuredContent as ModelList).data;
    assert.deepEqual(
      data.map((m) => m.id),
      ['old'],
    );
    const unknown = (await mcp.callTool({
      name: 'list_models',
      arguments: { model: 'nope' },
    })) as CallToolResult;
    assert.equal(unknown.isError, true);
    assert.match(textOf(unknown), /invalid_request: model nope is not offered here \(models: base, old\)/);
    await close();
  });

  it('dollars reads micro-dollars as a person would', () => {
    assert.equal(dollars(40_000), '$0.04');
    assert.equal(dollars(134_000), '$0.134');
    assert.equal(dollars(1_500_000), '$1.50');
    assert.equal(dollars(0), '$0.00');
  });

  it("quote_image with work_id quotes refine_image's body, and refine_image sends the quote_id", async () => {
    const sent: unknown[] = [];
    const quote = {
      quote_id: 'qt_1',
      expected_cost_micros: 1,
      max_cost_micros: 2,
      max_per_image_micros: 2,
      count: 1,
      currency: 'USD' as const,
      expires_at: 1,
    };
    const { mcp, close } = await connect(
      scriptedClient({
        quote: async (body) => {
          sent.push(body);
          return quote;
        },
        generate: async (body) => {
          sent.push(body);
          return { task_ids: ['tsk_2'], email: 'a@b.c' };
        },
      }),
    );
    const args = { work_id: 'tsk_1', prompt: 'darker sky', imageSize: '4K' };
    const quoted = (await mcp.callTool({ name: 'quote_image', arguments: args })) as CallToolResult;
    assert.equal(quoted.isError, undefined, textOf(quoted));
    await mcp.callTool({
      name: 'refine_image',
      arguments: { work_id: 'tsk_1', instruction: 'darker sky', imageSize: '4K', quote_id: 'qt_1' },
    });
    const [quoteBody, refineBody] = sent as Array<Record<string, unknown>>;
    assert.deepEqual(quoteBody, {
      prompt: 'darker sky',
      instruction: 'darker sky',
      parentId: 'tsk_1',
      imageSize: '4K',
    });
    assert.deepEqual(refineBody, { ...quoteBody, quote_id: 'qt_1' });
    await close();
  });

  it('no tool text copies the catalog: the ids, aspects and defaults of the default catalog are nowhere', async () => {
    const { mcp, close } = await connect(scriptedClient({}));
    const texts = JSON.stringify((await mcp.listTools()).tools);
    for (const copied of ['base-image-2', 'flash2', '21:9', '4:5, 5:4', 'This deployment offers']) {
      assert.ok(!texts.includes(copied), copied);
    }
    assert.match(texts, /list_models/);
    await close();
  });
});

describe('prompts and icons (in-memory)', () => {
  it('serverInfo carries an SVG icon as a data URI', async () => {
    const { mcp, close } = await connect(scriptedClient({}));
    const icon = mcp.getServerVersion()?.icons?.[0];
    assert.equal(icon?.mimeType, 'image/svg+xml');
    const svg = Buffer.from(icon?.src.replace('data:image/svg+xml;base64,', '') ?? '', 'base64').toString();
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg".*<title>Atelier<\/title>/);
    assert.doesNotMatch(svg, /script|href=|url\(http/i);
    await close();
  });

  it('lists three prompts with their arguments; each answers a request naming the right tools', async () => {
    const { mcp, close } = await connect(scriptedClient({}));
    const { prompts } = await mcp.listPrompts();
    assert.deepEqual(
      prompts.map((p) => [p.name, p.arguments?.map((a) => `${a.name}${a.required ? '*' : ''}`)]),
      [
        ['product_shot', ['product*', 'details', 'aspect']],
        ['edit_image', ['image*', 'change*']],
        ['variations', ['subject*', 'count', 'aspect']],
      ],
    );
    const text = async (name: string, args: Record<string, string>) => {
      const got = await mcp.getPrompt({ name, arguments: args });
      const content = got.messages[0]?.content;
      assert.equal(got.messages[0]?.role, 'user');
      return content?.type === 'text' ? content.text : '';
    };
    const shot = await text('product_shot', { product: 'a matte black mug', aspect: '4:5' });
    assert.match(shot, /a matte black mug .*pure white background.*generate_image with aspect "4:5"/s);
    assert.match(
      await text('edit_image', { image: 'tsk_42', change: 'darker sky' }),
      /refine_image with work_id "tsk_42"/,
    );
    assert.match(
      await text('edit_image', { image: 'https://example.com/a.png', change: 'darker sky' }),
      /upload_reference_image .*mode "edit"/s,
    );
    assert.match(
      await text('variations', { subject: 'gen_7', count: '9' }),
      /act_on_image with id "gen_7", action "vary".*count 4/s,
    );
    assert.match(
      await text('variations', { subject: 'a red fox', count: '2' }),
      /generate_image .*"a red fox", count 2/s,
    );
    await assert.rejects(mcp.getPrompt({ name: 'edit_image', arguments: { image: 'tsk_1' } }), /change/);
    await close();
  });
});

describe('the read-only server (in-memory)', () => {
  const readOnly = { readOnly: { fullEndpoint: 'https://atelier.test/mcp' } };

  it('offers the read tools only, no prompts and no MCP tasks', async () => {
    const { mcp, close } = await connect(scriptedClient({}), undefined, readOnly);
    const { tools } = await mcp.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...READ_TOOLS].sort());
    for (const tool of tools) assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
    assert.equal(mcp.getServerCapabilities()?.tasks, undefined);
    assert.equal(mcp.getServerCapabilities()?.prompts, undefined);
    assert.match(mcp.getInstructions() ?? '', /read-only/);
    await close();
  });

  it('refuses generate_image by name, sending nothing to the API', async () => {
    let generated = false;
    const { mcp, close } = await connect(
      scriptedClient({
        generate: async () => {
          generated = true;
          return { task_ids: ['tsk_1'], email: 'a@b.c' };
        },
      }),
      undefined,
      readOnly,
    );
    for (const name of ['generate_image', 'refine_image', 'act_on_image', 'upload_reference_image']) {
      const result = (await mcp.callTool({ name, arguments: { prompt: 'x' } })) as CallToolResult;
      assert.equal(result.isError, true, name);
      assert.match(
        textOf(result),
        new RegExp(
          `^read_only: ${name} is not offered on this read-only MCP endpoint.*https://atelier\\.test/mcp`,
          's',
        ),
      );
    }
    assert.equal(generated, false);
    await close();
  });
});
