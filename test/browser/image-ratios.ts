import type { Page } from 'playwright-core';

/**
 * Every displayed image whose drawn ratio is more than 2 % off its natural ratio. The drawn box is
 * the content box, except under object-fit: contain / scale-down, where the image is fitted inside
 * it (letterboxed) at its own ratio. `cover` crops and `fill` stretches: both count as not kept.
 */
export function distortedImages(page: Page) {
  return page.evaluate(() =>
    ([...document.querySelectorAll('img')] as HTMLImageElement[])
      .filter((img) => img.complete && img.naturalWidth > 0 && img.getClientRects().length > 0)
      .map((img) => {
        const style = getComputedStyle(img);
        // (No named helper: the bundler's name-keeping wrapper does not exist in the page.)
        const rect = img.getBoundingClientRect();
        const [left, right, top, bottom] = [
          style.paddingLeft,
          style.paddingRight,
          style.paddingTop,
          style.paddingBottom,
          style.borderLeftWidth,
          style.borderRightWidth,
          style.borderTopWidth,
          style.borderBottomWidth,
        ]
          .map((value) => Number.parseFloat(value) || 0)
          .reduce((sums, value, i) => {
            sums[i % 4] = (sums[i % 4] ?? 0) + value;
            return sums;
          }, [] as number[]);
        const boxWidth = rect.width - (left ?? 0) - (right ?? 0);
        const boxHeight = rect.height - (top ?? 0) - (bottom ?? 0);
        let [width, height] = [boxWidth, boxHeight];
        if (style.objectFit === 'contain' || style.objectFit === 'scale-down') {
          const scale = Math.min(boxWidth / img.naturalWidth, boxHeight / img.naturalHeight);
          [width, height] = [img.naturalWidth * scale, img.naturalHeight * scale];
        }
        // What of the drawn box (centred, object-position's default) the clipping ancestors let show.
        let [x0, y0] = [
          rect.left + (left ?? 0) + (boxWidth - width) / 2,
          rect.top + (top ?? 0) + (boxHeight - height) / 2,
        ];
        let [x1, y1] = [x0 + width, y0 + height];
        for (let parent = img.parentElement; parent; parent = parent.parentElement) {
          const overflow = getComputedStyle(parent);
          if (!/hidden|clip/.test(overflow.overflowX + overflow.overflowY)) continue;
          const clip = parent.getBoundingClientRect();
          [x0, y0, x1, y1] = [
            Math.max(x0, clip.left),
            Math.max(y0, clip.top),
            Math.min(x1, clip.right),
            Math.min(y1, clip.bottom),
          ];
        }
        [width, height] = [x1 - x0, y1 - y0];
        const natural = img.naturalWidth / img.naturalHeight;
        return {
          alt: img.alt.slice(0, 40),
          natural: `${img.naturalWidth}×${img.naturalHeight}`,
          drawn: `${Math.round(width)}×${Math.round(height)} (${style.objectFit})`,
          off: Math.abs(width / height / natural - 1),
        };
      })
      .filter((image) => !(image.off <= 0.02)),
  );
}
