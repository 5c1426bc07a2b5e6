/**
 * A worker node for the engine tests, run as a real child process: the configuration comes from
 * the environment as for `bin/atelier serve` with `ATELIER_ROLES=worker`, plus a short lease
 * (`TEST_LEASE_MS`) so a test of a killed worker need not wait 30 s. Prints `ready` once working.
 */

import { createCore } from '../../src/core.js';
import { loadConfig } from '../../src/infra/config/config.js';

const core = await createCore(loadConfig(process.env), {
  leaseMs: Number(process.env.TEST_LEASE_MS ?? 3000),
  idlePollMs: Number(process.env.TEST_IDLE_POLL_MS ?? 200),
  ...(process.env.TEST_CAPACITY_WINDOW_MS
    ? { capacityWindowMs: Number(process.env.TEST_CAPACITY_WINDOW_MS) }
    : {}),
});
core.engine.start();
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void core.close(1000).then(() => process.exit(0));
});
