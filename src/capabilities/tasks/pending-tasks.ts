import type { TaskRecord } from './task-record.js';

/**
 * A task's status record with what its generation asked for (the website's creation view lists
 * these). Read by the creations read model (src/use-cases/read-models/creations.ts, listPendingCards), which
 * joins tasks with their generations; the tasks service adds the places of parked ones.
 */
export interface TaskWithRequest extends TaskRecord {
  generation_id: string;
  /** Whether the task was submitted through the API (`api`) or from the website (`web`). */
  source: 'api' | 'web';
  prompt: string;
  model: string;
  mode: string;
  aspect: string;
  imageSize: string;
  /** Position of the image in its generation, and how many the generation asked for. */
  index: number;
  count: number;
  /** The generation's reference images, its imageUrls as given (a re-run sends them again). */
  refs: string[];
  createdAt: number;
}

/** Which cards: unfinished ones, those created since `since`, not final at `clearedAt`; at most `limit`. */
export interface PendingListingOptions {
  since: number | undefined;
  limit: number;
  clearedAt?: number | null;
}
