/** A task's status (spec §2.4): queued, then in progress, then completed or failed — the two final ones. */
export const TASK_STATUSES = ['queued', 'in_progress', 'completed', 'failed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** The statuses a task never leaves. */
export const FINAL_STATUSES = ['completed', 'failed'] as const satisfies readonly TaskStatus[];
export type FinalStatus = (typeof FINAL_STATUSES)[number];

/** The statuses of a task still to run or running. */
export const UNFINISHED_STATUSES = ['queued', 'in_progress'] as const satisfies readonly TaskStatus[];

/** Whether a task with this status is finished (completed or failed); not when there is no status. */
export function isFinalStatus(status: string | undefined): status is FinalStatus {
  return status === 'completed' || status === 'failed';
}
