// A fetched source_url is judged by its bytes, whatever its headers claim: the safe fetcher's
// stand-ins serve hostile images, and the upload's inspector decides.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bmpOfSize, encodedImage, gifOfSize, pngOfSize } from '../../../test/fakes/image-fixtures.js';
import { registerStandIns, rejectsWith, SOURCE, setup } from '../../../test/fakes/outbound/stand-ins.js';
import { inspectImageFile } from '../../infra/images/inspect-image.js';

registerStandIns(async () => {
  const jpeg = await encodedImage('jpeg', 160, 120);
  return {
    'page.html': Buffer.from('<!doctype html><title>x</title><script>alert(1)</script>'),
    'bomb.png': pngOfSize(14_000, 14_000),
    'anim.gif': gifOfSize(5000, 5000, { frames: 5 }),
    'truncated.jpg': jpeg.subarray(0, Math.floor(jpeg.length / 2)),
    'image.bmp': bmpOfSize(12, 9),
  };
});

describe('hostile corpus: fetched bytes are judged by content, not by headers', () => {
  async function fetchAndInspect(path: string) {
    const { fetcher } = setup({ maxBytes: 25 * 1024 * 1024 });
    const file = await fetcher.fetchToFile(`http://img.example.test/${path}`, SOURCE);
    try {
      return await inspectImageFile(file.path);
    } finally {
      await file.cleanup();
    }
  }

  it('HTML served as image/png is 415', async () => {
    await assert.rejects(fetchAndInspect('page.html'), rejectsWith('unsupported_media'));
  });

  it('a 14000×14000 PNG under 1 MB is 422', async () => {
    await assert.rejects(fetchAndInspect('bomb.png'), rejectsWith('invalid_image', /megapixels/));
  });

  it('an animated GIF whose frames exceed the pixel budget is 422', async () => {
    await assert.rejects(fetchAndInspect('anim.gif'), rejectsWith('invalid_image', /megapixels/));
  });

  it('a truncated JPEG is 422', async () => {
    await assert.rejects(fetchAndInspect('truncated.jpg'), rejectsWith('invalid_image'));
  });

  it('a BMP served as application/octet-stream is read as a BMP', async () => {
    assert.deepEqual(await fetchAndInspect('image.bmp'), {
      contentType: 'image/bmp',
      extension: 'bmp',
      width: 12,
      height: 9,
      frames: 1,
    });
  });
});
