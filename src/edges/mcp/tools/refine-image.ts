import { z } from 'zod';
import { AtelierApiError } from '../../client/atelier-client.js';
import {
  generateInputSchema,
  generateOutputSchema,
  generateSubmission,
  type Submission,
  withoutUndefined,
} from './generate-image.js';
import type { GenerationTool } from './generate-image-tool.js';

const { model, aspect, quality, imageSize, seed, quote_id, wait } = generateInputSchema;

export const refineInputSchema = {
  work_id: z
    .string()
    .min(1)
    .max(200)
    .describe(
      'The work to refine: a task id (tsk_…) that generate_image or refine_image returned (that image), or a ' +
        'generation id (gen_…) from list_my_generations (its first image). It must be a completed image of ' +
        'this account.',
    ),
  instruction: z
    .string()
    .min(1)
    .max(8000)
    .describe(
      'What to change, as the user said it ("make the sky darker", "add a cat on the saddle"); at most 8000 ' +
        'characters. It is the prompt of the edit and is kept in the lineage.',
    ),
  model: model.describe(
    "Model id, default the deployment's default_model; it must support edit (its modes in list_models). " +
      'The work may have been made by another model.',
  ),
  aspect: aspect.describe(
    "Width:height ratio of the new version, one of the model's aspects (list_models); default the work's own " +
      'shape.',
  ),
  quality,
  imageSize,
  seed,
  quote_id: quote_id.describe(
    'A quote_id from quote_image called with this work_id, the instruction as prompt and the same model, ' +
      "aspect, quality, imageSize and seed: the new version is never charged more than the quote's max_cost_micros.",
  ),
  wait,
};

type RefineArgs = z.infer<z.ZodObject<typeof refineInputSchema>>;

/**
 * `refine_image`: the next version of a work, by id, with an instruction (issue 44). A generate with
 * `parentId`: the work's image is the edit's reference, and the new work names its parent.
 */
export const REFINE_IMAGE: GenerationTool = {
  name: 'refine_image',
  config: {
    title: 'Refine an image',
    description:
      'Make the next version of an earlier image of this account by id, with an instruction ("now make the sky ' +
      'darker"): the work\'s image is edited, nothing needs uploading. Answers like generate_image (one task id ' +
      'at once; set wait to get the finished image as a stable URL, resource link and thumbnail; MCP tasks ' +
      'work the same). Lineage: the new version names its parent (its task record has parentTaskId; its ' +
      'list_my_generations item has parentId, parentTaskId and instruction). To refine again, pass the new ' +
      "task id; list_versions with any version's id lists the whole chain, oldest first. Each version " +
      'spends upstream credit like generate_image.',
    inputSchema: refineInputSchema,
    outputSchema: generateOutputSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  submission: (args) => refineSubmission(args as RefineArgs),
  explainError: (error) =>
    // The API names the field it was given (parentId); the agent passed work_id.
    error instanceof AtelierApiError && error.message.startsWith('parentId')
      ? new AtelierApiError(error.status, error.type, `work_id${error.message.slice('parentId'.length)}`)
      : error,
};

function refineSubmission(args: RefineArgs): Submission {
  const { work_id, instruction, wait: seconds, ...options } = args;
  const fields = withoutUndefined(options);
  return generateSubmission(
    { prompt: instruction, instruction, parentId: work_id, ...fields },
    seconds ?? 0,
    `The new version refines ${work_id}; refine it further with its task id, or call list_versions to see every version.`,
  );
}
