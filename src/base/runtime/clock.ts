/** The clock port: every "now" in the core comes from here, so tests can move time. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
