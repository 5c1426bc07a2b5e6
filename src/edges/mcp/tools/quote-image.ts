import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { type AtelierClient, type GenerateRequest, quoteSchema } from '../../client/atelier-client.js';
import { errorResult, structuredResult } from '../tool-results.js';
import { type GenerateArgs, generateInputSchema, generateRequestOf } from './generate-image.js';

/**
 * generate_image's arguments but those that only matter when images are made (wait, a quote). A
 * seed stays: the quote binds the whole body, so a generate with a seed needs a quote with it.
 */
const { wait: _wait, quote_id: _quoteId, ...generateFields } = generateInputSchema;

const quoteInputSchema = {
  ...generateFields,
  work_id: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      'To price a refine_image call instead: its work_id, with its instruction as prompt and its model, aspect, ' +
        'quality, imageSize and seed (leave mode, imageUrls and count out); pass the quote_id to refine_image.',
    ),
};
type QuoteArgs = GenerateArgs & { work_id?: string };

/**
 * The body a call would send: generate_image's, or with work_id refine_image's (a generate with
 * parentId whose instruction is the prompt), so the quote binds exactly what that tool then sends.
 */
function quotedBody({ work_id, ...args }: QuoteArgs): GenerateRequest {
  const body = generateRequestOf(args);
  return work_id === undefined ? body : { ...body, instruction: body.prompt, parentId: work_id };
}

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
        'large or high-quality images. With work_id it prices a refine_image call. list_models gives every ' +
        "model's prices per image at once.",
      inputSchema: quoteInputSchema,
      outputSchema: quoteSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args, extra) => {
      try {
        return structuredResult(await client.quote(quotedBody(args as QuoteArgs), { signal: extra.signal }));
      } catch (error) {
        return errorResult(error);
      }
    },
  );
}
