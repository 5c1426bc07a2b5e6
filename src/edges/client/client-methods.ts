import type { z } from 'zod';
import {
  type AccountStatus,
  type ActionRequest,
  accountStatusSchema,
  type GenerateRequest,
  type GenerateResponse,
  generateResponseSchema,
  type HistoryPage,
  historyPageSchema,
  type ModelList,
  modelListSchema,
  type Quote,
  quoteSchema,
  type TaskRecord,
  type TasksResponse,
  taskRecordSchema,
  tasksResponseSchema,
  type UploadResult,
  type UsageReport,
  uploadResultSchema,
  usageReportSchema,
  type WorkVersions,
  workVersionsSchema,
} from './api-schemas.js';
import type { Call } from './client-transport.js';

/** Sends one call and answers its parsed body (the client's transport, bound). */
export type CallApi = <S extends z.ZodType>(call: Call<S>) => Promise<z.infer<S>>;

export interface RequestOptions {
  /** Cancels the request; the reason is rethrown as is. */
  signal?: AbortSignal;
}

export type UploadInput = { source_url: string } | { bytes: Uint8Array; contentType: string };

export interface HistoryQuery {
  page?: number;
  limit?: number;
}

/** Generations: create them, and quote them first. */
export function creationMethods(call: CallApi) {
  return {
    /** POST /api/v1/generate: creates one task per image and answers at once with their ids. */
    generate(request: GenerateRequest, opts: RequestOptions = {}): Promise<GenerateResponse> {
      return call({
        method: 'POST',
        path: '/generate',
        body: { json: request },
        schema: generateResponseSchema,
        signal: opts.signal,
      });
    },

    /**
     * POST /api/v1/generations/{id}/actions: an action (upscale, vary, expand, remove_background,
     * reroll) on a finished image, `id` a generation id (its first image) or a task id; answers like
     * generate. Another account's or an unknown id: 404 not_found.
     */
    act(id: string, request: ActionRequest, opts: RequestOptions = {}): Promise<GenerateResponse> {
      return call({
        method: 'POST',
        path: `/generations/${encodeURIComponent(id)}/actions`,
        body: { json: request },
        schema: generateResponseSchema,
        signal: opts.signal,
      });
    },

    /**
     * POST /api/v1/quotes: what a generate body is expected to cost and the most it can; its quote_id,
     * sent with the same body, binds that maximum. Nothing is created.
     */
    quote(request: GenerateRequest, opts: RequestOptions = {}): Promise<Quote> {
      return call({
        method: 'POST',
        path: '/quotes',
        body: { json: request },
        schema: quoteSchema,
        signal: opts.signal,
      });
    },
  };
}

/** Tasks: one, a batch, cancel. */
export function taskMethods(call: CallApi) {
  return {
    /** GET /api/v1/tasks/{id}: one task record; an unknown id is a 404 not_found. */
    getTask(taskId: string, opts: RequestOptions = {}): Promise<TaskRecord> {
      return call({
        method: 'GET',
        path: `/tasks/${encodeURIComponent(taskId)}`,
        schema: taskRecordSchema,
        signal: opts.signal,
      });
    },

    /**
     * POST /api/v1/tasks/{id}/cancel: an unfinished task ends failed with error "Canceled" (repeating it
     * answers the same); a finished one is a 409 conflict.
     */
    cancelTask(taskId: string, opts: RequestOptions = {}): Promise<TaskRecord> {
      return call({
        method: 'POST',
        path: `/tasks/${encodeURIComponent(taskId)}/cancel`,
        schema: taskRecordSchema,
        signal: opts.signal,
      });
    },

    /** GET /api/v1/tasks?ids=…: up to 20 records in the order of `taskIds`; unknown ids come back failed. */
    getTasks(taskIds: readonly string[], opts: RequestOptions = {}): Promise<TasksResponse> {
      // Commas stay literal (they separate ids); each id is encoded on its own.
      return call({
        method: 'GET',
        path: '/tasks',
        query: `ids=${taskIds.map((id) => encodeURIComponent(id)).join(',')}`,
        schema: tasksResponseSchema,
        signal: opts.signal,
      });
    },
  };
}

/** Uploads and the account's history. */
export function libraryMethods(call: CallApi) {
  return {
    /** POST /api/v1/upload: re-hosts an image from a public URL, or from bytes sent directly. */
    upload(input: UploadInput, opts: RequestOptions = {}): Promise<UploadResult> {
      const body =
        'source_url' in input
          ? { json: { source_url: input.source_url } }
          : { bytes: input.bytes, contentType: input.contentType };
      return call({ method: 'POST', path: '/upload', body, schema: uploadResultSchema, signal: opts.signal });
    },

    /** GET /api/v1/history: the account's generations, newest first; omitted page/limit take server defaults. */
    history(query: HistoryQuery = {}, opts: RequestOptions = {}): Promise<HistoryPage> {
      const params = new URLSearchParams();
      if (query.page !== undefined) params.set('page', String(query.page));
      if (query.limit !== undefined) params.set('limit', String(query.limit));
      return call({
        method: 'GET',
        path: '/history',
        query: params.toString(),
        schema: historyPageSchema,
        signal: opts.signal,
      });
    },

    /**
     * GET /api/v1/history/{id}/versions: a work's lineage (its ancestors and every refinement of
     * them), oldest first; `id` is a generation id or one of its images' task ids. Unknown: 404.
     */
    versions(id: string, opts: RequestOptions = {}): Promise<WorkVersions> {
      return call({
        method: 'GET',
        path: `/history/${encodeURIComponent(id)}/versions`,
        schema: workVersionsSchema,
        signal: opts.signal,
      });
    },
  };
}

/** The catalog and the account: models, status, usage. */
export function accountMethods(call: CallApi) {
  return {
    /** GET /api/v1/models: every model with its modes, sizes, qualities, prices and lifecycle. */
    models(opts: RequestOptions = {}): Promise<ModelList> {
      return call({ method: 'GET', path: '/models', schema: modelListSchema, signal: opts.signal });
    },

    /** GET /api/v1/user/status: e-mail, tier and whether generation can reach an upstream. */
    userStatus(opts: RequestOptions = {}): Promise<AccountStatus> {
      return call({ method: 'GET', path: '/user/status', schema: accountStatusSchema, signal: opts.signal });
    },

    /** GET /api/v1/user/usage: images completed and failed per UTC day and model, and the tier's allowance. */
    userUsage(range: { from?: string; to?: string } = {}, opts: RequestOptions = {}): Promise<UsageReport> {
      const params = new URLSearchParams();
      if (range.from !== undefined) params.set('from', range.from);
      if (range.to !== undefined) params.set('to', range.to);
      return call({
        method: 'GET',
        path: '/user/usage',
        query: params.toString(),
        schema: usageReportSchema,
        signal: opts.signal,
      });
    },
  };
}
