// The OpenAI stand-in behind its own limit, in its own process (for bench/capacity.ts --upstream-process):
// the node under test then spends no CPU or event-loop time on the upstream's side of each call, as
// with a real upstream. Options come as JSON in ATELIER_BENCH_UPSTREAM_LIMIT; each IPC request
// answers the stand-in's address and the limit's counts.
import { UPSTREAM_KEY } from '../../test/engine/capacity-fixtures.js';
import { startFakeOpenAI } from '../../test/fakes/providers/fake-openai.js';
import { createUpstreamLimit } from '../../test/fakes/providers/upstream-limit.js';
import { serveIpc } from './ipc-child.js';

const limit = createUpstreamLimit(JSON.parse(process.env.ATELIER_BENCH_UPSTREAM_LIMIT ?? '{}'));
const fake = await startFakeOpenAI({ apiKey: UPSTREAM_KEY, limit });

serveIpc(async () => ({
  baseUrl: fake.baseUrl,
  accepted: limit.stats.accepted,
  refused: limit.stats.refused,
  maxInFlight: limit.stats.maxInFlight,
}));
