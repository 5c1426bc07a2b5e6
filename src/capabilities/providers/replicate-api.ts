/**
 * Replicate's HTTP API as the adapter uses it: one authenticated call, the failure an error answer
 * maps to (only allow-listed text reaches a task's message), model references and prediction ids,
 * and each model's input schema, read once and cached.
 */
import type { Dispatcher } from 'undici';
import type { ProviderFailure } from './provider.js';
import { refusedInputs } from './replicate-inputs.js';
import { type ModelInputs, readInputSchema } from './replicate-schema.js';
import { retryAfterMs } from './retry-after.js';
import { callUpstream, transportFailure, type UpstreamAnswer } from './upstream-call.js';
import { httpFailureText } from './upstream-error-text.js';
import { failureFactory, statusClass } from './upstream-failures.js';
import { isRecord, parseJson } from './upstream-json.js';

export const PREDICTION_ID = /^[a-z0-9]{6,64}$/i;
const MODEL_REF = /^([a-z0-9][a-z0-9_.-]*)\/([a-z0-9][a-z0-9_.-]*)(?::([a-z0-9]{8,128}))?$/i;

/** A catalog's `upstreamModel`: `owner/name` (latest version) or `owner/name:version` (pinned). */
export interface ModelRef {
  owner: string;
  name: string;
  version?: string;
}

/** Parses `owner/name[:version]`; undefined when the text is not a model reference. */
export function parseModelRef(upstreamModel: string): ModelRef | undefined {
  const match = MODEL_REF.exec(upstreamModel);
  if (!match?.[1] || !match[2]) return undefined;
  return { owner: match[1], name: match[2], version: match[3] };
}

export const replicateFailure = failureFactory('Replicate');

/** Sets `key` as the newest entry of `map`, dropping the oldest past `limit` (a bounded memory). */
export function rememberBounded<K, V>(map: Map<K, V>, key: K, value: V, limit = 10_000): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > limit) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
}

export interface ReplicateApiOptions {
  baseUrl: string;
  requestTimeoutMs: number;
  schemaTtlMs: number;
  dispatcher: Dispatcher;
  now: () => number;
}

/** The calls of one adapter instance, bound to its base URL, timeouts and dispatcher. */
export function createReplicateApi({
  baseUrl,
  requestTimeoutMs,
  schemaTtlMs,
  dispatcher,
  now,
}: ReplicateApiOptions) {
  const schemas = new Map<string, { inputs: ModelInputs; fetchedAt: number }>();

  /** One call; `url` is absolute (list cursors are) or a path under the base URL. */
  const call = (
    apiKey: string,
    url: string,
    method: 'GET' | 'POST',
    signal: AbortSignal,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
  ) =>
    callUpstream({
      url: url.startsWith('/') ? `${baseUrl}${url}` : url,
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...extraHeaders,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: requestTimeoutMs,
      signal,
      dispatcher,
    });

  /** The failure of a non-2xx answer: retryable or not by status, with Retry-After where given. */
  function errorFailure(answer: Extract<UpstreamAnswer, { kind: 'response' }>): ProviderFailure {
    const { status, headers, body } = answer;
    const { retryable, cause } = statusClass(status);
    // Only allow-listed fields reach the message (see upstream-error-text.ts): for a refused input,
    // the names of the inputs Atelier fills, as Replicate's detail lists them; never its free text.
    const failure = replicateFailure(httpFailureText(status, [], refusedInputs(status, parseJson(body))), {
      retryable: status === 402 ? false : retryable,
      // 402: the account's credit is spent (a billing refusal, not a rate limit).
      cause: status === 402 ? 'quota_exhausted' : cause,
    });
    if (status === 429 || status === 503) {
      const wait = retryAfterMs(headers, now());
      if (wait !== undefined) failure.retryAfterMs = wait;
    }
    // Replicate's limits are all on request rates (per minute): its throttling is a limit on time.
    if (status === 429) failure.timeLimit = true;
    return failure;
  }

  /** The model's inputs, from the cache while younger than `schemaTtlMs`. */
  async function loadInputs(
    ref: ModelRef,
    apiKey: string,
    signal: AbortSignal,
  ): Promise<ModelInputs | ProviderFailure> {
    const key = `${ref.owner}/${ref.name}:${ref.version ?? 'latest'}`;
    const cached = schemas.get(key);
    if (cached && now() - cached.fetchedAt < schemaTtlMs) return cached.inputs;
    const path = ref.version
      ? `/v1/models/${ref.owner}/${ref.name}/versions/${ref.version}`
      : `/v1/models/${ref.owner}/${ref.name}`;
    const answer = await call(apiKey, path, 'GET', signal);
    if (answer.kind === 'transport_error')
      return { ...transportFailure('Replicate', answer), maybeAccepted: false };
    if (answer.status === 404) {
      return replicateFailure(`model ${key.replace(/:latest$/, '')} not found upstream (HTTP 404)`, {
        retryable: false,
        cause: 'model_not_found',
      });
    }
    if (answer.status < 200 || answer.status >= 300) return errorFailure(answer);
    const json = parseJson(answer.body);
    const openapi = isRecord(json)
      ? ref.version
        ? json.openapi_schema
        : isRecord(json.latest_version)
          ? json.latest_version.openapi_schema
          : undefined
      : undefined;
    const inputs = readInputSchema(openapi);
    if (!inputs)
      return replicateFailure(`cannot read the input schema of ${key}`, {
        retryable: true,
        cause: 'bad_response',
      });
    rememberBounded(schemas, key, { inputs, fetchedAt: now() }, 500);
    return inputs;
  }

  return { baseUrl, call, errorFailure, loadInputs };
}

export type ReplicateApi = ReturnType<typeof createReplicateApi>;
