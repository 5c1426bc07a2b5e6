import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import sharp from 'sharp';
import { providerRequest } from '../../../test/fakes/providers/provider-request.js';
import type { ActionSettings } from '../../base/domain/image-actions.js';
import { type CompositionShape, compositionOf } from './local-composition.js';
import { renderLocalImage } from './local-provider.js';
import type { ProviderRequest, ReferenceImage } from './provider.js';

/** The offline renderer's actions (issue 45) and seeds, on its own pictures. */

const asReference = (bytes: Buffer, width: number, height: number): ReferenceImage => ({
  bytes,
  contentType: 'image/png',
  width,
  height,
});

const rgba = async (bytes: Buffer) => {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
};

/** Mean absolute difference per channel (RGB) between two images of the same size. */
async function meanDifference(a: Buffer, b: Buffer): Promise<number> {
  const [x, y] = await Promise.all([rgba(a), rgba(b)]);
  assert.deepEqual([x.width, x.height], [y.width, y.height]);
  let sum = 0;
  for (let i = 0; i < x.data.length; i += 4) {
    for (let c = 0; c < 3; c++) sum += Math.abs((x.data[i + c] ?? 0) - (y.data[i + c] ?? 0));
  }
  return sum / ((x.data.length / 4) * 3);
}

/** A picture of the renderer (prompt, size and seed given) and the request that made it. */
async function rendered(prompt: string, width: number, height: number, seed?: number) {
  const request = providerRequest({ prompt, width, height, ...(seed === undefined ? {} : { seed }) });
  return { request, reference: asReference(await renderLocalImage(request), width, height) };
}

/** The request the engine makes for an action on `reference`. */
const actionRequest = (
  reference: ReferenceImage,
  action: ActionSettings,
  extra: Partial<ProviderRequest> = {},
): ProviderRequest =>
  providerRequest({
    mode: 'edit',
    prompt: 'a lighthouse at dawn',
    references: [reference],
    width: reference.width,
    height: reference.height,
    action,
    ...extra,
  });

describe('local renderer: seeds', () => {
  test('the same seed gives byte-identical images, another seed a different one', async () => {
    const [a, b, c] = await Promise.all([
      renderLocalImage(providerRequest({ prompt: 'a red fox', seed: 42 })),
      renderLocalImage(providerRequest({ prompt: 'a red fox', seed: 42 })),
      renderLocalImage(providerRequest({ prompt: 'a red fox', seed: 43 })),
    ]);
    assert.ok(a.equals(b), 'same seed, same bytes');
    assert.ok(!a.equals(c), 'another seed, another image');
    assert.ok((await meanDifference(a, c)) > 5, 'the images differ visibly, not in a few pixels');
  });

  test('without a seed the picture is the prompt\u2019s, as before (a seed changes it)', async () => {
    const [plain, again, seeded] = await Promise.all([
      renderLocalImage(providerRequest({ prompt: 'a red fox' })),
      renderLocalImage(providerRequest({ prompt: 'a red fox' })),
      renderLocalImage(providerRequest({ prompt: 'a red fox', seed: 0 })),
    ]);
    assert.ok(plain.equals(again));
    assert.ok(!plain.equals(seeded));
  });
});

describe('local renderer: upscale', () => {
  for (const scale of [2, 4]) {
    test(`×${scale}: exactly ${scale} times the pixels per side, the same picture resampled`, async () => {
      const { reference } = await rendered('a lighthouse at dawn', 200, 150);
      const bytes = await renderLocalImage(
        actionRequest(reference, { name: 'upscale', scale }, { width: 200 * scale, height: 150 * scale }),
      );
      const meta = await sharp(bytes).metadata();
      assert.deepEqual([meta.width, meta.height], [200 * scale, 150 * scale]);
      const back = await sharp(bytes).resize(200, 150, { kernel: 'lanczos3' }).png().toBuffer();
      const difference = await meanDifference(back, reference.bytes);
      assert.ok(
        difference < 2,
        `downscaled back, it is the input (mean difference ${difference.toFixed(2)})`,
      );
    });
  }
});

/** Whether (x, y) lies within `margin` px of one of the composition's shapes. */
function inShape(shapes: CompositionShape[], x: number, y: number, margin: number): boolean {
  return shapes.some(({ kind, cx, cy, r, angle }) => {
    if (kind === 'circle') return Math.hypot(x - cx, y - cy) <= r + margin;
    const turn = (-angle * Math.PI) / 180;
    const along = (x - cx) * Math.cos(turn) - (y - cy) * Math.sin(turn);
    const across = (x - cx) * Math.sin(turn) + (y - cy) * Math.cos(turn);
    return Math.abs(along) <= r + margin && Math.abs(across) <= r / 4 + margin;
  });
}

describe('local renderer: remove_background', () => {
  for (const prompt of ['a lighthouse at dawn', 'a red fox in the snow', 'cat on a mat']) {
    test(`"${prompt}": the gradient becomes transparent, the shapes stay`, async () => {
      const { request, reference } = await rendered(prompt, 480, 360, 7);
      const bytes = await renderLocalImage(actionRequest(reference, { name: 'remove_background' }));
      const meta = await sharp(bytes).metadata();
      assert.equal(meta.format, 'png');
      assert.equal(meta.hasAlpha, true);
      const { data, width, height } = await rgba(bytes);
      assert.deepEqual([width, height], [480, 360]);
      const { shapes } = compositionOf(request);
      let background = 0;
      let transparent = 0;
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          const alpha = data[(y * width + x) * 4 + 3];
          if (alpha === 0) transparent += 1;
          if (inShape(shapes, x + 0.5, y + 0.5, 2)) continue;
          background += 1;
          assert.equal(alpha, 0, `background pixel ${x},${y} is transparent`);
        }
      }
      // Not vacuous: the gradient shows over a fair part of the picture, and all of that is cut out.
      assert.ok(background / (width * height) > 0.1, `the gradient shows (${background} pixels)`);
      assert.ok(transparent >= background, 'every background pixel is transparent');
      // The most opaque circle's centre, where nothing else is drawn nearby, is kept whole.
      const circles = shapes.filter(
        (s) => s.kind === 'circle' && s.cx > 0 && s.cy > 0 && s.cx < width && s.cy < height,
      );
      const opaqueCentres = circles.filter(
        (s) => (data[(Math.floor(s.cy) * width + Math.floor(s.cx)) * 4 + 3] ?? 0) === 255,
      );
      assert.ok(
        circles.length === 0 || opaqueCentres.length / circles.length >= 0.6,
        'the shapes are opaque',
      );
    });
  }

  test('a photo: the colour of its border region is keyed out, the subject kept', async () => {
    const [width, height] = [300, 200];
    const pixels = Buffer.alloc(width * height * 3);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const subject = Math.hypot(x - 150, y - 110) < 55;
        const grain = ((x * 7919 + y * 104_729) % 13) - 6;
        const wall = 200 - (40 * x) / width - (20 * y) / height + grain;
        pixels.set(
          subject ? [120 + grain, 60 + grain, 40 + grain] : [wall, wall + 5, wall + 12],
          (y * width + x) * 3,
        );
      }
    }
    const photo = await sharp(pixels, { raw: { width, height, channels: 3 } })
      .jpeg({ quality: 85 })
      .toBuffer();
    const reference = { ...asReference(photo, width, height), contentType: 'image/jpeg' };
    const { data } = await rgba(
      await renderLocalImage(actionRequest(reference, { name: 'remove_background' })),
    );
    const alphaAt = (x: number, y: number) => data[(y * width + x) * 4 + 3];
    for (const [x, y] of [
      [2, 2],
      [297, 2],
      [2, 197],
      [297, 197],
      [40, 100],
      [260, 60],
    ] as const) {
      assert.equal(alphaAt(x, y), 0, `wall at ${x},${y} is transparent`);
    }
    for (const [x, y] of [
      [150, 110],
      [120, 100],
      [180, 130],
    ] as const) {
      assert.equal(alphaAt(x, y), 255, `subject at ${x},${y} is opaque`);
    }
  });
});

/** The engine's expand: the picture centred on a transparent canvas `factor` times its size, and the mask. */
async function paddedCanvas(picture: ReferenceImage, factor: number) {
  const width = Math.round(picture.width * factor);
  const height = Math.round(picture.height * factor);
  const left = Math.floor((width - picture.width) / 2);
  const top = Math.floor((height - picture.height) / 2);
  const pad = { left, top, right: width - picture.width - left, bottom: height - picture.height - top };
  const canvas = await sharp(picture.bytes)
    .ensureAlpha()
    .extend({ ...pad, background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .png()
    .toBuffer();
  const maskPixels = Buffer.alloc(width * height * 4);
  for (let y = top; y < top + picture.height; y++) {
    maskPixels.fill(255, (y * width + left) * 4, (y * width + left + picture.width) * 4);
  }
  const mask = await sharp(maskPixels, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
  return { canvas: asReference(canvas, width, height), mask: asReference(mask, width, height), left, top };
}

describe('local renderer: expand', () => {
  test('keeps every original pixel in place and fills the border, continuing the picture', async () => {
    const { reference: picture } = await rendered('a lighthouse at dawn', 240, 160, 3);
    const { canvas, mask, left, top } = await paddedCanvas(picture, 1.5);
    const bytes = await renderLocalImage(
      actionRequest(
        canvas,
        { name: 'expand', factor: 1.5 },
        { mask, prompt: 'extend the scene: a lighthouse' },
      ),
    );
    const [result, original, guide] = await Promise.all([rgba(bytes), rgba(canvas.bytes), rgba(mask.bytes)]);
    assert.deepEqual([result.width, result.height], [canvas.width, canvas.height]);
    let border = 0;
    for (let i = 0; i < result.data.length; i += 4) {
      if (guide.data[i + 3] === 255) {
        assert.ok(
          result.data.subarray(i, i + 4).equals(original.data.subarray(i, i + 4)),
          `pixel ${i / 4} kept`,
        );
      } else {
        border += 1;
        assert.equal(result.data[i + 3], 255, 'the border is filled, not left transparent');
      }
    }
    assert.ok(border > 0);
    // Just outside the picture's left edge, the fill carries on its edge's colours.
    let step = 0;
    for (let y = top; y < top + picture.height; y++) {
      for (let c = 0; c < 3; c++) {
        const at = (y * canvas.width + left) * 4 + c;
        step += Math.abs((result.data[at] ?? 0) - (result.data[at - 8] ?? 0));
      }
    }
    assert.ok(
      step / (picture.height * 3) < 25,
      `no hard seam at the picture's edge (${(step / (picture.height * 3)).toFixed(1)})`,
    );
  });
});

describe('local renderer: vary', () => {
  test('subtle changes the picture a little, strong much more; the same seed gives the same variation', async () => {
    const { reference } = await rendered('a lighthouse at dawn', 320, 240, 11);
    const vary = (strength: 'subtle' | 'strong', seed: number) =>
      renderLocalImage(
        actionRequest(
          reference,
          { name: 'vary', strength },
          { seed, prompt: 'a variation of: a lighthouse' },
        ),
      );
    const [subtle, strong, subtleAgain, subtleOther] = await Promise.all([
      vary('subtle', 5),
      vary('strong', 5),
      vary('subtle', 5),
      vary('subtle', 6),
    ]);
    const subtleDifference = await meanDifference(subtle, reference.bytes);
    const strongDifference = await meanDifference(strong, reference.bytes);
    assert.ok(subtleDifference > 2, `subtle changes it (${subtleDifference.toFixed(1)})`);
    assert.ok(subtleDifference < 25, `subtle keeps it recognisable (${subtleDifference.toFixed(1)})`);
    assert.ok(
      strongDifference > subtleDifference * 1.5,
      `strong (${strongDifference.toFixed(1)}) moves further`,
    );
    assert.ok(subtle.equals(subtleAgain), 'same seed, same bytes');
    assert.ok(!subtle.equals(subtleOther), 'another seed, another variation');
  });
});
