// A counting upstream in its own process: the project's loopback Replicate stand-in serving the
// model behind the catalog's `flash2`, answering how many calls it has had for predictions and files.
import { startFakeReplicate } from '../../test/fakes/providers/fake-replicate.js';
import { serveIpc } from './ipc-child.js';

export const TOKEN = 'r8_benchToken0123456789abcdefghij';

const fake = await startFakeReplicate({
  token: TOKEN,
  models: [
    {
      name: 'google/nano-banana-2',
      version: 'f'.repeat(64),
      inputs: {
        prompt: { type: 'string' },
        aspect_ratio: { type: 'string', enum: ['1:1', '16:9'] },
        resolution: { type: 'string', enum: ['1K', '2K', '4K'] },
        seed: { type: 'integer', minimum: 0, maximum: 1_000_000 },
      },
    },
  ],
});

serveIpc(async () => {
  const taskCalls = fake.requests.filter((r) => /\/predictions|\/files\//.test(r.path));
  return { baseUrl: fake.baseUrl, token: TOKEN, calls: taskCalls.length, creates: fake.creates.length };
});
