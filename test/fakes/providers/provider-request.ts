/** A complete ProviderRequest for adapter tests, with overridable defaults. */
import { pixelSize } from '../../../src/base/domain/image-sizes.js';
import type { ProviderRequest, ReferenceImage } from '../../../src/capabilities/providers/provider.js';
import { solidPng } from './fake-http.js';

let counter = 0;

export function providerRequest(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  const aspect = overrides.aspect ?? '1:1';
  const imageSize = overrides.imageSize ?? '1K';
  const { width, height } = pixelSize(aspect, imageSize);
  counter += 1;
  return {
    taskId: `tsk_test${counter}`,
    upstreamModel: 'model',
    mode: 'text',
    prompt: 'a lighthouse at dawn',
    aspect,
    imageSize,
    width,
    height,
    index: 0,
    references: [],
    apiKey: 'test-key',
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** A stored reference image as the engine hands it over. */
export async function referenceImage(width = 96, height = 64, color = '#22aa66'): Promise<ReferenceImage> {
  return { bytes: await solidPng(width, height, color), contentType: 'image/png', width, height };
}
