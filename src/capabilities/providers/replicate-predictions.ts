/**
 * Replicate prediction states mapped onto poll outcomes: progress from the logs or the elapsed
 * time, the output URL, and a fixed reason per failure (the model's own error text is read to
 * classify, never copied; see upstream-error-text.ts).
 */
import { assertNever } from '../../base/domain/assert-never.js';
import type { PollOutcome } from './provider.js';
import { failureFactory } from './upstream-failures.js';
import { isRecord } from './upstream-json.js';

export const STATUSES = ['starting', 'processing', 'succeeded', 'failed', 'canceled', 'aborted'] as const;
export type PredictionStatus = (typeof STATUSES)[number];

const fail = failureFactory('Replicate');

/** The last `NN%` in a prediction's logs (tqdm-style progress bars), if any. */
function progressFromLogs(logs: unknown): number | undefined {
  if (typeof logs !== 'string') return undefined;
  const matches = [...logs.matchAll(/(\d{1,3})%/g)];
  const last = matches.at(-1)?.[1];
  if (last === undefined) return undefined;
  const value = Number(last);
  return value >= 0 && value <= 100 ? Math.min(99, value) : undefined;
}

/** The first URL in a prediction output (a string, or a list of them for multi-image models). */
function firstUrl(output: unknown): string | undefined {
  if (typeof output === 'string') return /^https?:\/\//.test(output) ? output : undefined;
  if (Array.isArray(output)) {
    for (const item of output) {
      const url = firstUrl(item);
      if (url) return url;
    }
  }
  if (isRecord(output)) {
    for (const value of Object.values(output)) {
      const url = firstUrl(value);
      if (url) return url;
    }
  }
  return undefined;
}

/** The poll outcome of a prediction in `status`; `expectedMs` and `now` estimate progress. */
export function mapPrediction(
  status: PredictionStatus,
  prediction: Record<string, unknown>,
  { id, expectedMs, now }: { id: string; expectedMs: number; now: number },
): PollOutcome {
  switch (status) {
    case 'starting':
      return { kind: 'pending', status: 'queued' };
    case 'processing': {
      const fromLogs = progressFromLogs(prediction.logs);
      if (fromLogs !== undefined) return { kind: 'pending', status: 'in_progress', progress: fromLogs };
      const startedAt =
        typeof prediction.started_at === 'string' ? Date.parse(prediction.started_at) : Number.NaN;
      const estimate = Number.isNaN(startedAt)
        ? undefined
        : Math.min(90, Math.floor(((now - startedAt) / expectedMs) * 90));
      return estimate === undefined
        ? { kind: 'pending', status: 'in_progress' }
        : { kind: 'pending', status: 'in_progress', progress: Math.max(1, estimate) };
    }
    case 'succeeded': {
      if (prediction.data_removed === true) {
        return fail(`the output of prediction ${id} was already deleted by Replicate`, {
          retryable: false,
          cause: 'invalid_request',
        });
      }
      const url = firstUrl(prediction.output);
      if (!url)
        return fail(`prediction ${id} succeeded without an image URL`, {
          retryable: false,
          cause: 'bad_response',
        });
      return { kind: 'done', image: { url } };
    }
    case 'failed': {
      // The model's error text is read to classify, never copied (see upstream-error-text.ts).
      const error = typeof prediction.error === 'string' ? prediction.error : '';
      const blocked = /nsfw|sensitive|safety|flagged|moderation/i.test(error);
      const why = blocked
        ? "the model's safety checker refused the prompt or the result; change the prompt or the images"
        : 'the model reported an error while running';
      return fail(`prediction ${id} failed: ${why}`, {
        retryable: false,
        cause: blocked ? 'blocked' : 'upstream_error',
      });
    }
    case 'canceled':
      return fail(`prediction ${id} was canceled upstream`, { retryable: false, cause: 'canceled' });
    case 'aborted':
      return fail(`prediction ${id} reached its deadline before it started`, {
        retryable: false,
        cause: 'timeout',
      });
    default:
      return assertNever(status, 'prediction status');
  }
}
