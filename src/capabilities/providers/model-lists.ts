/**
 * The providers' model lists, asked whether the catalog's upstream models still exist:
 * - Gemini `GET /v1/models` (paged by `pageToken`, each `name` is `models/{id}`);
 * - OpenAI `GET /v1/models` (`data[].id`, and `shutdown_date` where OpenAI announced one);
 * - Replicate `GET /v1/models/{owner}/{name}` (and `…/versions/{id}` for a pinned version), one
 *   call per model: 200 is present, 404 missing;
 * - fal's Platform API `GET /v1/models?endpoint_id=…` (find mode).
 * Every function answers data, never throws: a transport failure or an error status is `{ error }`.
 */
import type { Dispatcher } from 'undici';
import type { ModelPresence } from './provider.js';
import { callUpstream } from './upstream-call.js';
import { isRecord, parseJson } from './upstream-json.js';

export interface ModelListCall {
  baseUrl: string;
  apiKey: string;
  signal: AbortSignal;
  dispatcher: Dispatcher;
  timeoutMs?: number;
}

const MAX_PAGES = 20;

async function getJson(
  url: string,
  headers: Record<string, string>,
  call: ModelListCall,
): Promise<{ status: number; json: unknown } | { error: string }> {
  const answer = await callUpstream({
    url,
    method: 'GET',
    headers,
    timeoutMs: call.timeoutMs ?? 15_000,
    signal: call.signal,
    dispatcher: call.dispatcher,
    maxResponseBytes: 16 * 1024 * 1024,
  });
  if (answer.kind === 'transport_error') return { error: answer.detail };
  return { status: answer.status, json: parseJson(answer.body) };
}

const split = (models: readonly string[], known: ReadonlySet<string>) => ({
  present: models.filter((m) => known.has(m)),
  missing: models.filter((m) => !known.has(m)),
});

/** Gemini: every page of `GET /v1/models`. */
export async function geminiModelPresence(
  models: readonly string[],
  call: ModelListCall,
): Promise<ModelPresence> {
  const known = new Set<string>();
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = new URLSearchParams({ pageSize: '1000' });
    if (pageToken) query.set('pageToken', pageToken);
    const answer = await getJson(
      `${call.baseUrl}/v1/models?${query}`,
      { 'x-goog-api-key': call.apiKey },
      call,
    );
    if ('error' in answer) return answer;
    if (answer.status !== 200) return { error: `the model list answered HTTP ${answer.status}` };
    const json = answer.json;
    if (!isRecord(json)) return { error: 'the model list is unreadable' };
    for (const model of Array.isArray(json.models) ? json.models : []) {
      if (isRecord(model) && typeof model.name === 'string') known.add(model.name.replace(/^models\//, ''));
    }
    pageToken =
      typeof json.nextPageToken === 'string' && json.nextPageToken !== '' ? json.nextPageToken : undefined;
    if (!pageToken) break;
  }
  return {
    ...split(
      models.map((m) => m.replace(/^models\//, '')),
      known,
    ),
    listed: [...known],
  };
}

/** OpenAI: `GET /v1/models`. */
export async function openAIModelPresence(
  models: readonly string[],
  call: ModelListCall,
): Promise<ModelPresence> {
  // A server that takes no key (an OpenAI-compatible one) is asked without an Authorization header.
  const headers: Record<string, string> = call.apiKey ? { authorization: `Bearer ${call.apiKey}` } : {};
  const answer = await getJson(`${call.baseUrl}/v1/models`, headers, call);
  if ('error' in answer) return answer;
  if (answer.status !== 200) return { error: `the model list answered HTTP ${answer.status}` };
  const json = answer.json;
  if (!isRecord(json) || !Array.isArray(json.data)) return { error: 'the model list is unreadable' };
  const known = new Set<string>();
  const shutdowns: Record<string, string> = {};
  for (const model of json.data) {
    if (!isRecord(model) || typeof model.id !== 'string') continue;
    known.add(model.id);
    const day =
      typeof model.shutdown_date === 'string' ? /^\d{4}-\d{2}-\d{2}/.exec(model.shutdown_date) : null;
    if (day && models.includes(model.id)) shutdowns[model.id] = day[0];
  }
  return { ...split(models, known), shutdowns, listed: [...known] };
}

const REPLICATE_REF = /^([a-z0-9][a-z0-9_.-]*)\/([a-z0-9][a-z0-9_.-]*)(?::([a-z0-9]{8,128}))?$/i;

/** Replicate: `GET /v1/models/{owner}/{name}[/versions/{id}]` per model. */
export async function replicateModelPresence(
  models: readonly string[],
  call: ModelListCall,
): Promise<ModelPresence> {
  const present: string[] = [];
  const missing: string[] = [];
  for (const model of models) {
    const ref = REPLICATE_REF.exec(model);
    if (!ref) {
      missing.push(model);
      continue;
    }
    const path = `/v1/models/${ref[1]}/${ref[2]}${ref[3] ? `/versions/${ref[3]}` : ''}`;
    const answer = await getJson(`${call.baseUrl}${path}`, { authorization: `Bearer ${call.apiKey}` }, call);
    if ('error' in answer) return answer;
    if (answer.status === 404) missing.push(model);
    else if (answer.status === 200) present.push(model);
    else return { error: `${path} answered HTTP ${answer.status}` };
  }
  return { present, missing };
}

/**
 * fal: the Platform API's model search in find mode, `GET /v1/models?endpoint_id=…&endpoint_id=…`
 * (at most 50 per call) → `{models: [{endpoint_id, metadata: {status}}], has_more}`.
 */
export async function falModelPresence(
  models: readonly string[],
  call: ModelListCall,
): Promise<ModelPresence> {
  const known = new Set<string>();
  for (let start = 0; start < models.length; start += 50) {
    const query = models
      .slice(start, start + 50)
      .map((model) => `endpoint_id=${encodeURIComponent(model)}`)
      .join('&');
    const answer = await getJson(
      `${call.baseUrl}/v1/models?${query}`,
      { authorization: `Key ${call.apiKey}` },
      call,
    );
    if ('error' in answer) return answer;
    if (answer.status !== 200) return { error: `the model search answered HTTP ${answer.status}` };
    const list = isRecord(answer.json) && Array.isArray(answer.json.models) ? answer.json.models : undefined;
    if (!list) return { error: 'the model search is unreadable' };
    for (const model of list)
      if (isRecord(model) && typeof model.endpoint_id === 'string') known.add(model.endpoint_id);
  }
  return split(models, known);
}
