import { isFinalStatus } from '../../../src/base/domain/task-status';
import { api } from './api';
import { notePreview } from './previews';
import { createStore } from './store';
import type { TaskCard, TaskRecord } from './types';

/**
 * The creation view's task cards, newest first. Kept outside components so a card keeps its place
 * while the person visits other pages; the feed below keeps them current.
 */
export interface TasksState {
  cards: TaskCard[];
  /** Cards the person cleared: a listing already under way must not bring them back. */
  dismissed: string[];
  /** The account's last clear as the server reported it (the server leaves those tasks out). */
  clearedAt?: number | null;
  /** The first listing left older tasks out (more than it shows): the view links to saved works. */
  hasMore?: boolean;
}

/**
 * Kept in sessionStorage too, so a reload paints the same cards at once; the first listing then
 * replaces them with the server's view (the last day's tasks, less what the account cleared).
 */
export const tasksStore = createStore<TasksState>({ cards: [], dismissed: [] }, 'atelier.tasks');

/** Merges a newer view of a task into its card; a stale answer never moves a task backwards. */
function mergeRecord(card: TaskCard, record: TaskRecord): TaskCard {
  if (isFinalStatus(card.status) && !isFinalStatus(record.status)) return card;
  if (!isFinalStatus(record.status) && record.progress < card.progress && record.status === card.status)
    return card;
  const { task_id: _id, ...fields } = record;
  const next: TaskCard = { ...card, ...fields };
  if (record.status !== 'completed') delete next.imageUrl;
  if (record.status !== 'failed') delete next.error;
  // A wait's fields are absent once it ends (or when the record is not placed): none kept stale.
  for (const key of ['waiting_for', 'queue_position', 'estimated_start_at'] as const)
    if (record[key] === undefined) delete next[key];
  return next;
}

/** Adds new cards and updates known ones (from the pending listing or the generate answer). */
export function upsertCards(incoming: TaskCard[]): void {
  tasksStore.set((state) => {
    const dismissed = new Set(state.dismissed);
    const byId = new Map(state.cards.map((c) => [c.task_id, c]));
    let changed = false;
    for (const card of incoming) {
      if (dismissed.has(card.task_id)) continue;
      const known = byId.get(card.task_id);
      const next = known ? mergeRecord(known, card) : card;
      if (next !== known) {
        byId.set(card.task_id, next);
        changed = true;
      }
    }
    if (!changed) return state;
    const cards = [...byId.values()].sort(byRecency);
    return { ...state, cards };
  });
}

/** Applies task records (the batch poll's answer) to known cards. */
export function applyRecords(records: TaskRecord[]): void {
  tasksStore.set((state) => {
    const byId = new Map(records.map((r) => [r.task_id, r]));
    let changed = false;
    const cards = state.cards.map((card) => {
      const record = byId.get(card.task_id);
      if (!record) return card;
      const next = mergeRecord(card, record);
      if (next !== card) changed = true;
      return next;
    });
    return changed ? { ...state, cards } : state;
  });
}

/** What GET /web/api/tasks/pending answers. */
interface Listing {
  now: number;
  clearedAt: number | null;
  tasks: TaskCard[];
  has_more?: boolean;
  /** With `since`: works deleted since then (another tab, device or client), whose cards leave. */
  removed?: string[];
  /** More works were deleted than `removed` names: the next look is a whole listing. */
  removed_more?: boolean;
}

const byRecency = (a: TaskCard, b: TaskCard) =>
  b.createdAt - a.createdAt || a.generation_id.localeCompare(b.generation_id) || a.index - b.index;

/**
 * Applies a listing. The first one after a load (`complete`: no `since`) is the server's whole
 * view, so it replaces the cards (keeping only cards just submitted and not listed yet). A later
 * clear, from this tab or another device, takes finished cards the listing no longer has away; so
 * does a work deleted elsewhere (another tab, Saved works, another device), named in `removed`.
 */
function applyListing(listing: Listing, complete: boolean): void {
  const listed = new Set(listing.tasks.map((t) => t.task_id));
  const removed = new Set(listing.removed);
  tasksStore.set((state) => {
    const clearedElsewhere = (listing.clearedAt ?? 0) > (state.clearedAt ?? 0);
    const keep = (card: TaskCard) =>
      !removed.has(card.generation_id) &&
      (listed.has(card.task_id) ||
        (complete ? card.generation_id === '' : !(clearedElsewhere && isFinalStatus(card.status))));
    const hasMore = complete ? listing.has_more === true : state.hasMore || listing.has_more === true;
    return { ...state, cards: state.cards.filter(keep), clearedAt: listing.clearedAt, hasMore };
  });
  upsertCards(listing.tasks);
}

/**
 * Reads the pending listing (everything recent at first, then what changed since the last look).
 * Answers it with the server time the next look starts from (none: the next is a whole listing).
 */
async function readListing(serverNow: number | undefined): Promise<{ listing: Listing; next?: number }> {
  const since = serverNow === undefined ? '' : `?since=${Math.max(0, serverNow - LISTING_OVERLAP_MS)}`;
  const listing = await api.get<Listing>(`/web/api/tasks/pending${since}`);
  applyListing(listing, serverNow === undefined);
  return listing.removed_more ? { listing } : { listing, next: listing.now };
}

/**
 * Removes finished cards from the view (they stay in saved works and the library), for this
 * account everywhere: the server remembers the clear, so a reload or another device agrees.
 */
export async function clearFinished(): Promise<void> {
  tasksStore.set((state) => {
    const finished = state.cards.filter((c) => isFinalStatus(c.status)).map((c) => c.task_id);
    return {
      ...state,
      cards: state.cards.filter((c) => !isFinalStatus(c.status)),
      dismissed: [...state.dismissed, ...finished].slice(-500),
    };
  });
  const { clearedAt } = await api.post<{ clearedAt: number }>('/web/api/tasks/cleared');
  tasksStore.set((state) => ({ ...state, clearedAt }));
}

/**
 * How the creation view learns about task changes: the event stream (`createStreamingTaskFeed`),
 * with polling (`createPollingTaskFeed`) as its fallback — the view only sees these three calls.
 */
export interface TaskFeed {
  start(): void;
  stop(): void;
  /** Look now (after a submit), instead of at the next tick. */
  refresh(): void;
}

/** The ids the batch endpoint takes at most (spec §4.3). */
const BATCH_MAX = 20;
/** Overlap of consecutive listings, so a task that began and ended between two looks is not missed. */
const LISTING_OVERLAP_MS = 15_000;

/**
 * Polls every `intervalMs` (2 s: inside the spec's 2–5 s recommendation), slower while the tab is
 * hidden. Each tick lists the account's pending tasks — which is how tasks submitted through the
 * API are taken over — then asks /api/v1/tasks?ids= about cards that left the pending list.
 */
export function createPollingTaskFeed({ intervalMs = 2000, hiddenIntervalMs = 15_000 } = {}): TaskFeed {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  let inFlight: Promise<void> | undefined;
  let serverNow: number | undefined;

  async function tick(): Promise<void> {
    const { listing, next } = await readListing(serverNow);
    serverNow = next;
    const listed = new Set(listing.tasks.map((t) => t.task_id));
    const stale = tasksStore
      .get()
      .cards.filter((c) => !isFinalStatus(c.status) && !listed.has(c.task_id))
      .map((c) => c.task_id);
    for (let i = 0; i < stale.length; i += BATCH_MAX) {
      const ids = stale.slice(i, i + BATCH_MAX).join(',');
      const { tasks } = await api.get<{ tasks: TaskRecord[] }>(
        `/api/v1/tasks?ids=${encodeURIComponent(ids)}`,
      );
      applyRecords(tasks);
    }
  }

  function schedule(delay: number) {
    clearTimeout(timer);
    if (!running) return;
    timer = setTimeout(run, delay);
  }

  function run() {
    if (!running) return;
    if (inFlight) return;
    inFlight = tick()
      .catch(() => {
        // A failed look (network blip, restart) is retried at the next tick; a 401 signs out globally.
      })
      .finally(() => {
        inFlight = undefined;
        schedule(document.hidden ? hiddenIntervalMs : intervalMs);
      });
  }

  const onVisibility = () => {
    if (!document.hidden) schedule(0);
  };

  return {
    start() {
      if (running) return;
      running = true;
      document.addEventListener('visibilitychange', onVisibility);
      schedule(0);
    },
    stop() {
      running = false;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    },
    refresh() {
      schedule(0);
    },
  };
}

/**
 * The event-stream feed: unfinished cards are followed through `GET /api/v1/tasks/events`
 * (Server-Sent Events, one stream per 20 ids), so every change lands as it happens with no
 * polling of the tasks. The account's pending list is still read every `listingIntervalMs` —
 * that is how tasks submitted through the API are discovered and taken over. When a stream drops
 * (network, proxy, restart), the feed falls back to the polling feed and tries the stream again
 * after `retryStreamMs`.
 */
export function createStreamingTaskFeed(options: StreamingFeedOptions = {}): TaskFeed {
  return new StreamingTaskFeed(options);
}

interface StreamingFeedOptions {
  listingIntervalMs?: number;
  retryStreamMs?: number;
  fallback?: TaskFeed;
}

/** The event-stream feed (createStreamingTaskFeed): its methods are bound, to be passed around. */
class StreamingTaskFeed implements TaskFeed {
  private readonly listingIntervalMs: number;
  private readonly retryStreamMs: number;
  private readonly fallback: TaskFeed;
  private running = false;
  private degraded = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private streams: EventSource[] = [];
  private streamedKey = '';
  private serverNow: number | undefined;
  private listing: Promise<void> | undefined;

  constructor({ listingIntervalMs = 5000, retryStreamMs = 10_000, fallback }: StreamingFeedOptions) {
    this.listingIntervalMs = listingIntervalMs;
    this.retryStreamMs = retryStreamMs;
    this.fallback = fallback ?? createPollingTaskFeed();
  }

  /** Which channel is live, on <html data-task-feed>: for people debugging, and for the tests. */
  private showMode(mode: 'stream' | 'polling' | 'off') {
    document.documentElement.dataset.taskFeed = mode;
  }

  private closeStreams() {
    for (const stream of this.streams) stream.close();
    this.streams = [];
    this.streamedKey = '';
  }

  private degrade() {
    if (this.degraded || !this.running) return;
    this.degraded = true;
    this.closeStreams();
    this.showMode('polling');
    this.fallback.start();
    this.retryTimer = setTimeout(() => {
      this.degraded = false;
      this.fallback.stop();
      this.showMode('stream');
      this.refresh();
    }, this.retryStreamMs);
  }

  /** Opens streams for exactly the unfinished cards (reopening only when that set changed). */
  private syncStreams() {
    if (!this.running || this.degraded || typeof EventSource === 'undefined') return;
    const ids = tasksStore
      .get()
      .cards.filter((c) => !isFinalStatus(c.status))
      .map((c) => c.task_id)
      .sort();
    const key = ids.join(',');
    if (key === this.streamedKey) return;
    this.closeStreams();
    this.streamedKey = key;
    for (let i = 0; i < ids.length; i += BATCH_MAX)
      this.streams.push(this.openStream(ids.slice(i, i + BATCH_MAX)));
  }

  /** One stream of up to BATCH_MAX tasks: their records and preview frames as they come. */
  private openStream(chunk: string[]): EventSource {
    const stream = new EventSource(
      `/api/v1/tasks/events?ids=${encodeURIComponent(chunk.join(','))}&previews=true`,
    );
    stream.addEventListener('task', (event) => {
      applyRecords([JSON.parse((event as MessageEvent<string>).data) as TaskRecord]);
    });
    stream.addEventListener('preview', (event) => {
      const { task_id, frames } = JSON.parse((event as MessageEvent<string>).data) as {
        task_id: string;
        frames: number;
      };
      notePreview(task_id, frames);
    });
    // Every task of this stream is final: the server closes it; do not let EventSource reconnect.
    stream.addEventListener('end', () => {
      stream.close();
      this.streams = this.streams.filter((s) => s !== stream);
    });
    stream.addEventListener('error', () => {
      if (stream.readyState === EventSource.CLOSED || stream.readyState === EventSource.CONNECTING)
        this.degrade();
    });
    return stream;
  }

  private async list(): Promise<void> {
    this.serverNow = (await readListing(this.serverNow)).next;
    this.syncStreams();
  }

  readonly refresh = () => {
    clearTimeout(this.timer);
    if (!this.running) return;
    if (this.degraded) {
      this.fallback.refresh();
      return;
    }
    if (!this.listing) {
      this.listing = this.list()
        .catch(() => {
          // A failed listing is retried at the next tick; a 401 signs out globally.
        })
        .finally(() => {
          this.listing = undefined;
        });
    }
    this.timer = setTimeout(this.refresh, this.listingIntervalMs);
  };

  readonly start = () => {
    if (this.running) return;
    this.running = true;
    if (typeof EventSource === 'undefined') {
      this.degraded = true;
      this.showMode('polling');
      this.fallback.start();
      return;
    }
    this.showMode('stream');
    this.refresh();
  };

  readonly stop = () => {
    this.running = false;
    clearTimeout(this.timer);
    clearTimeout(this.retryTimer);
    this.closeStreams();
    this.fallback.stop();
    this.degraded = false;
    this.showMode('off');
  };
}
