/** The Saved works page's shapes (/web/api/works): its query, a saved work and a page of them. */
import { z } from 'zod';
import { curationQuery } from '../curation.js';
import { historyItemSchema } from '../generations.js';
import { pageFields } from '../paging.js';
import { taskRecordSchema } from '../tasks.js';
import { searchQuery, webPageQuery, workSourceSchema } from './shared.js';

export const worksQuerySchema = z.object({ ...webPageQuery(24), ...searchQuery, ...curationQuery });

/** A history item without its images (each task's record carries them) and never `removed`. */
export const savedWorkSchema = historyItemSchema
  .omit({ images: true, removed: true })
  .extend({
    source: workSourceSchema,
    tasks: z.array(taskRecordSchema).describe("Every task's record, in task order"),
  })
  .describe('A saved work: a generation not deleted');

export const savedWorksPageSchema = z
  .object({ items: z.array(savedWorkSchema).describe('Newest first'), ...pageFields })
  .describe('Saved works page');

export const workParamsSchema = z.object({ id: z.string().describe('Generation id (gen_…)') });

export type SavedWork = z.infer<typeof savedWorkSchema>;
export type SavedWorksPage = z.infer<typeof savedWorksPageSchema>;
