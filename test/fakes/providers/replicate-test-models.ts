/** The models and token the Replicate adapter's tests run against on the fake Replicate. */
import type { FakeModel } from './fake-replicate-models.js';

export const TOKEN = 'r8_testToken0123456789abcdefghij';
const ASPECTS = [
  'match_input_image',
  '1:1',
  '2:3',
  '3:2',
  '3:4',
  '4:3',
  '4:5',
  '5:4',
  '9:16',
  '16:9',
  '21:9',
];
export const PINNED = 'a'.repeat(64);

export const MODELS: FakeModel[] = [
  {
    name: 'google/nano-banana-pro',
    version: 'b'.repeat(64),
    inputs: {
      prompt: { type: 'string' },
      image_input: { type: 'array', maxItems: 14 },
      aspect_ratio: { type: 'string', enum: ASPECTS },
      resolution: { type: 'string', enum: ['1K', '2K', '4K'] },
      output_format: { type: 'string', enum: ['jpg', 'png'] },
    },
  },
  {
    name: 'black-forest-labs/flux-kontext-pro',
    version: 'c'.repeat(64),
    inputs: {
      prompt: { type: 'string' },
      input_image: { type: 'string', format: 'uri' },
      aspect_ratio: { type: 'string', enum: ASPECTS },
      seed: { type: 'integer' },
      safety_tolerance: { type: 'integer', minimum: 0, maximum: 6 },
    },
  },
  {
    name: 'acme/seeded-fusion',
    version: 'd'.repeat(64),
    inputs: {
      prompt: { type: 'string' },
      image_input: { type: 'array' },
      aspect_ratio: { type: 'string', enum: ['1:1', '16:9'] },
      seed: { type: 'integer', minimum: 0, maximum: 1_000_000 },
    },
  },
  // Image tools, their inputs as their Replicate API pages list them (2026).
  {
    name: 'nightmareai/real-esrgan',
    version: 'e'.repeat(64),
    inputs: {
      image: { type: 'string', format: 'uri' },
      scale: { type: 'number', minimum: 0, maximum: 10 },
      face_enhance: { type: 'boolean' },
    },
    required: ['image'],
    tool: 'upscale',
  },
  {
    name: '851-labs/background-remover',
    version: 'f'.repeat(64),
    inputs: {
      image: { type: 'string', format: 'uri' },
      threshold: { type: 'number' },
      reverse: { type: 'boolean' },
      background_type: { type: 'string' },
      format: { type: 'string' },
    },
    required: ['image'],
    tool: 'remove_background',
  },
  {
    name: 'acme/pinned',
    version: PINNED,
    inputs: { prompt: { type: 'string' }, aspect_ratio: { type: 'string', enum: ['1:1'] } },
  },
];
