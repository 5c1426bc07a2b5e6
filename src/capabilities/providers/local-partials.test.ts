import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { createLocalProvider } from './local-provider.js';
import type { PollOutcome, ProviderRequest } from './provider.js';

/** The local renderer's partial frames (OpenAI's partial_images): when they come, and what they are. */

const request = (extra: Partial<ProviderRequest> = {}): ProviderRequest => ({
  taskId: 'tsk_1',
  upstreamModel: 'local-v1',
  mode: 'text',
  prompt: 'a lighthouse',
  aspect: '1:1',
  imageSize: '1K',
  width: 256,
  height: 256,
  index: 0,
  references: [],
  apiKey: null,
  signal: new AbortController().signal,
  ...extra,
});

function setup() {
  let now = 1_000_000;
  const provider = createLocalProvider({ clock: { now: () => now }, latencyMs: 1000, renderSlots: 1 });
  return { provider, at: (ms: number) => (now = 1_000_000 + ms) };
}

const frameOf = (outcome: PollOutcome) => (outcome.kind === 'pending' ? outcome.partial : undefined);

test('frame k of n comes at (k+1)/(n+1) of the render, one per poll, never more than asked', async () => {
  const { provider, at } = setup();
  const submitted = await provider.submit(request());
  assert.equal(submitted.kind, 'pending');
  const upstreamId = submitted.kind === 'pending' ? submitted.upstreamId : '';
  const poll = (ms: number, partialFrames: number) => {
    at(ms);
    return provider.poll({ ...request({ partialImages: 2, partialFrames }), upstreamId });
  };
  assert.equal(frameOf(await poll(300, 0)), undefined, 'before 1/3: none');
  const first = frameOf(await poll(340, 0));
  assert.ok(first, 'at 1/3: frame 0');
  assert.equal(frameOf(await poll(600, 1)), undefined, 'before 2/3: none');
  const second = frameOf(await poll(700, 1));
  assert.ok(second, 'at 2/3: frame 1');
  assert.equal(frameOf(await poll(900, 2)), undefined, 'both made: none more');
  // Behind schedule (a slow poll), the frames still come one per poll, in order.
  assert.ok(frameOf(await poll(900, 0)));

  const done = await poll(1000, 2);
  assert.ok(done.kind === 'done' && 'bytes' in done.image);
  const raw = (bytes: Buffer) => sharp(bytes).removeAlpha().raw().toBuffer();
  const final = await raw(done.image.bytes);
  const distance = async (bytes: Buffer) => {
    const frame = await raw(bytes);
    assert.equal(frame.length, final.length, 'a frame has the image’s size');
    let sum = 0;
    for (let i = 0; i < frame.length; i++) sum += Math.abs((frame[i] ?? 0) - (final[i] ?? 0));
    return sum / frame.length;
  };
  const [far, near] = [await distance(first.bytes), await distance(second.bytes)];
  assert.ok(near < far, `the later frame is finer (${near} < ${far})`);
});

test('no partial_images: no frame is rendered', async () => {
  const { provider, at } = setup();
  const submitted = await provider.submit(request());
  const upstreamId = submitted.kind === 'pending' ? submitted.upstreamId : '';
  for (const ms of [200, 400, 600, 800]) {
    at(ms);
    assert.equal(frameOf(await provider.poll({ ...request(), upstreamId })), undefined);
  }
});
