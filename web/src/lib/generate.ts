import { api } from './api';
import { upsertCards } from './tasks';
import type { Mode } from './types';

/** What POST /web/api/generate takes (`parentId` and `instruction`: a refinement of a work). */
export interface GenerateRequest {
  prompt: string;
  model: string;
  mode: Mode;
  aspect: string;
  imageSize: string;
  count: number;
  imageUrls: string[];
  parentId?: string;
  instruction?: string;
}

/** Sends a generate request and shows its cards at once (queued) until the feed has them. */
export async function submitGenerate(body: GenerateRequest): Promise<string[]> {
  const { task_ids } = await api.post<{ task_ids: string[] }>('/web/api/generate', body);
  const createdAt = Date.now();
  upsertCards(
    task_ids.map((taskId, index) => ({
      task_id: taskId,
      status: 'queued',
      progress: 0,
      generation_id: '',
      source: 'web',
      prompt: body.prompt,
      model: body.model,
      mode: body.mode,
      aspect: body.aspect,
      imageSize: body.imageSize,
      index,
      count: task_ids.length,
      refs: body.imageUrls,
      createdAt,
    })),
  );
  return task_ids;
}
