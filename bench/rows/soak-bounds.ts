/**
 * M1's statement of each in-process cache and its bound, read from the constants the code uses (so
 * the row's output cannot drift from the code): what a node keeps that could grow with traffic.
 * docs/benchmarks.md ("Each in-process cache and its bound") is the same table, with the rest.
 */
import { API_KEY_CACHE_MAX_AGE_MS, API_KEYS_KEPT } from '../../src/capabilities/accounts/api-key-cache.js';
import { UPSTREAM_KEYS_KEPT } from '../../src/capabilities/accounts/upstream-key-cache.js';
import { FINAL_RECORDS_KEPT } from '../../src/capabilities/tasks/final-records.js';
import { FINAL_BATCHES_KEPT } from '../../src/edges/api/task-record-json.js';
import { MAX_CACHED as CLIENT_DOCUMENTS_KEPT } from '../../src/edges/oauth/client-metadata-documents.js';
import { VERSIONS_KEPT } from '../../src/use-cases/generations/history-versions.js';
import { HISTORY_PAGES_KEPT } from '../../src/use-cases/read-models/creations.js';

export interface CacheBound {
  cache: string;
  bound: string;
}

const n = (count: number) => count.toLocaleString('en-US');

/** Each cache and its bound, most recently used entries kept unless said otherwise. */
export function cacheBounds(): CacheBound[] {
  return [
    { cache: 'final task records', bound: `${n(FINAL_RECORDS_KEPT)} records (about 300 bytes each)` },
    { cache: 'final batch answers (JSON)', bound: `${n(FINAL_BATCHES_KEPT)} batches (at most about 6 MB)` },
    {
      cache: 'API keys by hash',
      bound: `${n(API_KEYS_KEPT)} keys, each re-read after ${API_KEY_CACHE_MAX_AGE_MS / 1000} s`,
    },
    { cache: 'accounts’ own upstream keys', bound: `${n(UPSTREAM_KEYS_KEPT)} entries` },
    { cache: 'history pages (JSON)', bound: `${n(HISTORY_PAGES_KEPT)} pages` },
    { cache: 'accounts’ history versions (SQLite)', bound: `${n(VERSIONS_KEPT)} accounts` },
    {
      cache: 'OAuth client metadata documents',
      bound: `${n(CLIENT_DOCUMENTS_KEPT)} documents of at most 5 KB`,
    },
    { cache: 'libvips’ operation cache', bound: 'off (sharp.cache(false))' },
    {
      cache: 'spans waiting to be sent (tracing on)',
      bound: '2,048 spans (the SDK’s batch queue), then dropped',
    },
  ];
}
