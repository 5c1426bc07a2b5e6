import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { type AtelierClient, type ModelList, modelListSchema } from '../../client/atelier-client.js';
import { errorResult, LocalToolError, structuredResult } from '../tool-results.js';

type Model = ModelList['data'][number];
type Price = NonNullable<Model['price']>;
type PerSize = Price['perImage'];

const inputSchema = {
  model: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Only this model id (as generate_image takes it); omitted: every model and action.'),
};

/** Micro-dollars as dollars, to the tenth of a cent ($0.04, $0.134, $1.50). */
export function dollars(micros: number): string {
  const value = micros / 1_000_000;
  return `$${value.toFixed(3).replace(/(\.\d\d)0$/, '$1')}`;
}

function sizePrices(perSize: PerSize | undefined): string {
  const entries = Object.entries(perSize ?? {}).filter(
    (entry): entry is [string, number] => entry[1] != null,
  );
  return entries.map(([size, micros]) => `${size} ${dollars(micros)}`).join(', ');
}

/** One model in a line an agent reads before choosing: what it does and what an image costs. */
export function describeModel(model: Model, defaultModel: string): string {
  const facts = [
    `${model.id}${model.id === defaultModel ? ' (default)' : ''}: ${model.name}, by ${model.owned_by}`,
    `modes ${model.modes.join('/')}`,
    `sizes ${model.sizes.join('/')}`,
    `up to ${model.maxCount} per call`,
  ];
  if (model.qualities.length > 0) {
    facts.push(`qualities ${model.qualities.join('/')} (default ${model.defaultQuality ?? 'auto'})`);
  }
  facts.push(model.seeds ? 'takes a seed' : 'no seed');
  const price = model.price;
  if (!price) facts.push('price unknown');
  else {
    facts.push(`per image ${sizePrices(price.perImage)}`);
    const most = sizePrices(price.maxPerImage);
    if (most) facts.push(`at most ${most}`);
  }
  const { deprecated, shutdown, replacement } = model.lifecycle;
  if (deprecated || shutdown) {
    const until = shutdown ? `, shuts down ${shutdown}` : '';
    facts.push(
      `deprecated${deprecated ? ` ${deprecated}` : ''}${until}${replacement ? `, use ${replacement}` : ''}`,
    );
  }
  return facts.join('; ');
}

/** The catalog in short lines: each model, then each configured action. */
export function summarizeCatalog(list: ModelList): string {
  const lines = list.data.map((model) => `- ${describeModel(model, list.default_model)}`);
  const actions = list.actions ?? [];
  if (actions.length > 0) {
    lines.push('Actions on a finished image (act_on_image):');
    for (const route of actions) {
      const options = [
        ...(route.scales ? [`scale ${route.scales.join('/')}`] : []),
        ...(route.strengths ? [`strength ${route.strengths.join('/')}`] : []),
        ...(route.model ? [`model ${route.model}`] : []),
        route.seeds ? 'takes a seed' : 'no seed',
        ...(route.price ? [`per image ${sizePrices(route.price.perImage)}`] : []),
      ];
      lines.push(`- ${route.action}: ${route.name} (${options.join('; ')})`);
    }
  }
  return `Prices in USD per image (micro-dollars in the JSON: 1,000,000 = $1); quote_image gives the exact price of a call.\n${lines.join('\n')}`;
}

/**
 * Registers `list_models`: the deployment's catalog as GET /api/v1/models answers it (with the
 * caller's key), optionally one model; the structured result mirrors the API, a second text block
 * sums it up in dollars. The tools' descriptions point here rather than copying the catalog.
 */
export function registerListModels(server: McpServer, client: AtelierClient): void {
  server.registerTool(
    'list_models',
    {
      title: 'List models and prices',
      description:
        'The models this deployment offers and what each can do: modes (text, edit, fusion), aspects, sizes, the ' +
        'most images per call, qualities, whether it takes a seed, its price per image by size and quality ' +
        '(micro-dollars, 1,000,000 = 1 USD) and lifecycle (deprecated, shutdown, replacement); default_model is ' +
        'used when generate_image names none; actions lists what act_on_image can do here (upscale scales, vary ' +
        'strengths, routes and prices). Read it before choosing a model, a size or an action; quote_image prices ' +
        'one exact call.',
      inputSchema,
      outputSchema: modelListSchema,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ model }, extra) => {
      try {
        const list = await client.models({ signal: extra.signal });
        const answer = model === undefined ? list : onlyModel(list, model);
        return structuredResult(answer, [{ type: 'text', text: summarizeCatalog(answer) }]);
      } catch (error) {
        return errorResult(error);
      }
    },
  );
}

function onlyModel(list: ModelList, id: string): ModelList {
  const data = list.data.filter((model) => model.id === id);
  if (data.length === 0) {
    const ids = list.data.map((model) => model.id).join(', ');
    throw new LocalToolError('invalid_request', `model ${id} is not offered here (models: ${ids})`);
  }
  const { actions: _actions, ...rest } = list;
  return { ...rest, data };
}
