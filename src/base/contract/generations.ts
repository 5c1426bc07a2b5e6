import { z } from 'zod';
import { IMAGE_ACTIONS } from '../domain/image-actions.js';
import { curationFields, curationQuery } from './curation.js';
import { pageOf, pageQuery } from './paging.js';

export { type GenerateBody, generateBodySchema } from './generate-body.js';

export const MAX_HISTORY_LIMIT = 50;

/** The answer of POST /generate (spec §2.3). */
export const generateResponseSchema = z
  .object({
    task_ids: z.array(z.string()).describe('One task per requested image'),
    email: z.string().describe("The account's e-mail address"),
  })
  .meta({
    id: 'GenerateResponse',
    description: 'Generate response',
    examples: [
      { task_ids: ['tsk_4f9c2a7e1b3d5c6a8e0f', 'tsk_9a8b7c6d5e4f3a2b1c0d'], email: 'me@example.com' },
    ],
  });

export type GenerateResponse = z.output<typeof generateResponseSchema>;

/** A refinement's lineage (extra fields, present only on a work that refines another). */
export const lineageFields = {
  parentId: z
    .string()
    .optional()
    .describe('Extra field (not in the spec): the work (generation id) this one refines'),
  parentTaskId: z
    .string()
    .optional()
    .describe('Extra field (not in the spec): the image (task id) of the parent refined'),
  instruction: z
    .string()
    .optional()
    .describe("Extra field (not in the spec): the refinement's instruction, as the person phrased it"),
  action: z
    .enum(IMAGE_ACTIONS)
    .optional()
    .describe(
      'Extra field (not in the spec): the action on the parent image that made this work (POST /generations/{id}/actions)',
    ),
  actionOptions: z
    .record(z.string(), z.union([z.number(), z.string()]))
    .optional()
    .describe(
      'Extra field (not in the spec): the action\'s settings ({"scale":2}, {"strength":"strong"}, {"factor":1.5})',
    ),
  seed: z
    .number()
    .int()
    .optional()
    .describe(
      "Extra field (not in the spec): the first image's seed (image i: seed + i), on routes that take one",
    ),
};

/** A history item (spec §2.6). */
export const historyItemSchema = z
  .object({
    id: z.string(),
    prompt: z.string(),
    model: z.string(),
    mode: z.string(),
    aspect: z.string(),
    imageSize: z.string(),
    imageCount: z.number().int(),
    images: z.array(z.string()).describe('URLs of the tasks completed so far, in task order'),
    refs: z.array(z.string()).describe("The request's imageUrls"),
    createdAt: z.number().int().describe('Milliseconds since the Unix epoch'),
    cost: z
      .object({
        amount_micros: z.number().int().min(0).describe('Micro-dollars: 67000 is $0.067'),
        currency: z.literal('USD'),
      })
      .nullable()
      .optional()
      .describe(
        "What the generation's completed images cost so far (the sum of their tasks' `cost`; failed images cost nothing); null when a completed image's route has no price. An extra field, not the spec's",
      ),
    removed: z.literal(true).optional().describe('Present (true) when the owner deleted it from saved works'),
    ...lineageFields,
    ...curationFields,
  })
  .meta({ id: 'HistoryItem', description: 'History item' });

export type HistoryItem = z.output<typeof historyItemSchema>;

/** A work's versions (GET /api/v1/history/{id}/versions, GET /web/api/works/{id}/versions). */
export const versionsSchema = z
  .object({
    versions: z
      .array(historyItemSchema)
      .describe('The work, its ancestors and every refinement of them, oldest first (at most 100)'),
  })
  .meta({ id: 'WorkVersions', description: "A work's versions (lineage)" });

export const historyPageSchema = pageOf(historyItemSchema).meta({
  id: 'HistoryPage',
  description: 'History page',
});

export type HistoryPage = z.output<typeof historyPageSchema>;

export const historyQuerySchema = z.object({ ...pageQuery(MAX_HISTORY_LIMIT), ...curationQuery });
