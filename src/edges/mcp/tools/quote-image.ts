import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type AtelierClient, quoteSchema } from '../../client/atelier-client.js';
import { errorResult, structuredResult } from '../tool-results.js';
import { type GenerateArgs, generateInputSchema, generateRequestOf } from './generate-image.js';

/**
 * generate_image's arguments but those that only matter when images are made (wait, a quote). A
 * seed stays: the quote binds the whole body, so a generate with a seed needs a quote with it.
 */
const { wait: _wait, quote_id: _quoteId, ...quoteInputSchema } = generateInputSchema;

/**
 * Registers `quote_image`: the price of a generate_image call before it runs (POST /api/v1/quotes).
 * Nothing is created or charged; the quote_id it answers, passed to generate_image with the same
 * arguments, caps what those images can cost.
 */
export function registerQuoteImage(server: McpServer, client: AtelierClient): void {
  server.registerTool(
    'quote_image',
    {
      title: 'Quote images',
      description:
        'What a generate_image call with these arguments is expected to cost and the most it can cost, in ' +
        'micro-dollars (1,000,000 = 1 USD), before anything runs; nothing is created or charged. Pass the ' +
        'quote_id it returns to generate_image with the same arguments within 15 minutes and the images are ' +
        'never charged more than max_cost_micros. Use it when the user cares about cost or asks for many, ' +
        'large or high-quality images.',
      inputSchema: quoteInputSchema,
      outputSchema: quoteSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args, extra) => {
      try {
        return structuredResult(
          await client.quote(generateRequestOf(args as GenerateArgs), { signal: extra.signal }),
        );
      } catch (error) {
        return errorResult(error);
      }
    },
  );
}
