import type { RequestQuota } from '../../providers/index.js';

/** The answer to a request for a slot. */
export type SlotAnswer =
  /** `retryAt`: this grant filled a ramp that grows then (parked tasks are to be called back). */
  | { kind: 'granted'; callId: string; retryAt?: number | undefined }
  /**
   * No slot now: `retryAt` when capacity returns at a known time (hold, window), else at a release;
   * `ramping` when only a climbing ramp is full (it grows at `retryAt`, a step away).
   */
  | { kind: 'wait'; retryAt: number | undefined; ramping?: boolean };

/** Parked tasks called back, and when room returns if the pool is full. */
export interface CallBack {
  called: number;
  retryAt: number | undefined;
  /** Room left once the pool's own tasks were called back, when tasks wait on its siblings' pools. */
  spare: number;
}

/** How an upstream call ended, for the pool's learning. */
export type CallResult = 'ok' | 'refused' | 'neutral';

/** What else the answer said: a refusal marked as a limit on time, the key's request budget. */
export interface CallTeaching {
  timeLimit?: boolean | undefined;
  quota?: RequestQuota | undefined;
}
