/**
 * Stage timing of one synchronous image (issue 48, bench row S1): where the milliseconds of a request
 * go between its arrival and its answer — admission, the task's insert, the hand-off to a worker, the
 * slot, the upstream call, storing the result, the final write, waking the waiting request, the
 * answer. Off unless ATELIER_STAGE_TIMING=1 (a diagnosis, never on in production): then the OpenAI
 * image routes answer a `server-timing` header with each stage's milliseconds. Off, `startTimeline`
 * answers undefined and `markTask` is one check of an unset variable: nothing is allocated or read.
 *
 * The engine marks by task id (it knows no request); a timeline linked to its tasks receives them.
 */

/** Stages in the order a synchronous image passes them; a stage's time ends at its mark. */
export const STAGES = [
  'admission',
  'insert',
  'handoff',
  'slot',
  'upstream',
  'store',
  'final',
  'wake',
  'answer',
] as const;
export type Stage = (typeof STAGES)[number];

let linked: Map<string, StageTimeline> | undefined;

/** Turns stage timing on for this process (the server's start, when configured). */
export function enableStageTiming(): void {
  linked ??= new Map();
}

/** One request's marks, from its start. */
export class StageTimeline {
  readonly #started = performance.now();
  readonly #marks = new Map<Stage, number>();
  #tasks: readonly string[] = [];

  /** Records that `stage` ended now (the first mark of a stage counts). */
  mark(stage: Stage): void {
    if (!this.#marks.has(stage)) this.#marks.set(stage, performance.now());
  }

  /** The engine's marks of these tasks come to this timeline (until `header`). */
  link(taskIds: readonly string[]): void {
    this.#tasks = taskIds;
    for (const id of taskIds) linked?.set(id, this);
  }

  /** `stage;dur=ms, …, total;dur=ms` (each stage from the previous mark), and the tasks unlinked. */
  header(): string {
    for (const id of this.#tasks) linked?.delete(id);
    let previous = this.#started;
    const parts: string[] = [];
    for (const stage of STAGES) {
      const at = this.#marks.get(stage);
      if (at === undefined) continue;
      parts.push(`${stage};dur=${(at - previous).toFixed(2)}`);
      previous = at;
    }
    parts.push(`total;dur=${(performance.now() - this.#started).toFixed(2)}`);
    return parts.join(', ');
  }
}

/** A request's timeline when stage timing is on; undefined (nothing made) when off. */
export function startTimeline(): StageTimeline | undefined {
  return linked === undefined ? undefined : new StageTimeline();
}

/** Marks `stage` on the timeline of the request that waits for `taskId`, if any. */
export function markTask(taskId: string, stage: Stage): void {
  if (linked === undefined) return;
  linked.get(taskId)?.mark(stage);
}
