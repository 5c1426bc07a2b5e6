import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** A prompt's answer: one user message, which the host puts in the conversation for the model to act on. */
const ask = (description: string, text: string): GetPromptResult => ({
  description,
  messages: [{ role: 'user', content: { type: 'text', text } }],
});

/** What a prompt's optional `aspect` argument adds to its request. */
const aspectOf = (aspect: string | undefined, fallback: string) =>
  aspect ? `aspect "${aspect}"` : `aspect "${fallback}" unless I said otherwise`;

const PRODUCT_SHOT = {
  title: 'Product shot on white',
  description: 'A clean e-commerce photo of a product on a seamless white background.',
  argsSchema: {
    product: z.string().min(1).describe('The product, as precisely as you can ("a matte black ceramic mug")'),
    details: z.string().optional().describe('Anything else: materials, angle, props, mood'),
    aspect: z.string().optional().describe('Width:height, e.g. 1:1 (default) or 4:5'),
  },
};

const EDIT_IMAGE = {
  title: 'Edit this image',
  description: 'Change an image: one already made here (its task or generation id), a URL or a local file.',
  argsSchema: {
    image: z
      .string()
      .min(1)
      .describe(
        'A task id (tsk_…) or generation id (gen_…) of an image made here, an image URL, or a file path',
      ),
    change: z.string().min(1).describe('What to change ("make the sky darker", "remove the logo")'),
  },
};

const VARIATIONS = {
  title: 'Make a set of variations',
  description: 'Several takes on one idea, or on an image already made, to pick from.',
  argsSchema: {
    subject: z
      .string()
      .min(1)
      .describe('What to draw, or the task/generation id (tsk_…, gen_…) of an image made here to vary'),
    count: z.string().optional().describe('How many, 2-4 (default 4)'),
    aspect: z.string().optional().describe('Width:height, e.g. 1:1 (default) or 16:9'),
  },
};

/** `count` as prompts receive it (a string): 2-4, default 4. */
function countOf(raw: string | undefined): number {
  const n = Number.parseInt(raw ?? '', 10);
  return Number.isFinite(n) ? Math.min(4, Math.max(2, n)) : 4;
}

const isWorkId = (value: string) => /^(tsk|gen)_\S+$/.test(value.trim());

/**
 * Registers the prompts (MCP prompts: templates a person picks in the host, e.g. as a slash command),
 * each a request worded for the model with the tools it should use, so the person types the subject
 * and not the recipe. Decision: prompts name tools but never a model id or a price; the model reads
 * those with list_models, so a prompt stays true on any catalog.
 */
export function registerPrompts(server: McpServer): void {
  server.registerPrompt('product_shot', PRODUCT_SHOT, ({ product, details, aspect }) =>
    ask(
      PRODUCT_SHOT.description,
      `Make a product photo of ${product} for an online shop: the product alone, centred and sharp, on a ` +
        'seamless pure white background (#ffffff) with a soft natural shadow beneath it, studio lighting, true ' +
        `colours, no text, no props${details ? `; ${details}` : ''}. Use generate_image with ${aspectOf(aspect, '1:1')}, ` +
        'count 1 and wait 45; if I care about cost, read list_models and quote_image first. Show me the image URL.',
    ),
  );
  server.registerPrompt('edit_image', EDIT_IMAGE, ({ image, change }) => {
    const how = isWorkId(image)
      ? `It is an image made here: call refine_image with work_id "${image.trim()}" and the instruction, wait 45.`
      : `Call upload_reference_image with it (source_url for a URL, path for a file), then generate_image with ` +
        'mode "edit", the uploaded url in imageUrls, the change as the prompt, and wait 45.';
    return ask(
      EDIT_IMAGE.description,
      `Edit this image: ${image.trim()}\nThe change: ${change}\n${how} Keep everything else as it is. Show me ` +
        'the new image URL, and say it can be refined further.',
    );
  });
  server.registerPrompt('variations', VARIATIONS, ({ subject, count, aspect }) => {
    const n = countOf(count);
    const how = isWorkId(subject)
      ? `It is an image made here: call act_on_image with id "${subject.trim()}", action "vary", strength ` +
        `"strong", count ${n} and wait 60.`
      : `Call generate_image with a rich prompt for "${subject}", count ${n}, ${aspectOf(aspect, '1:1')} and wait 60.`;
    return ask(
      VARIATIONS.description,
      `Make ${n} variations to choose from. ${how} Then show me every image URL, numbered, with one line on ` +
        'how each differs, and offer to upscale or refine the one I pick (act_on_image, refine_image).',
    );
  });
}
