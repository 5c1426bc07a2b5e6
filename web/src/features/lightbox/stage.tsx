import { type RefObject, useState } from 'react';
import { ImageIcon } from '../../ui/icons';
import { useCentredZoom, useStageGestures } from './lightbox-hooks';
import type { LightboxItem } from './lightbox-items';

/**
 * The image: fitted whole by default (object-fit: contain, never stretched), or at 100 % — one
 * image pixel per CSS pixel — in a stage that scrolls, panned by dragging, scrolling or the arrows.
 */
export function LightboxStage({
  item,
  stage,
  zoomed,
  onZoom,
  onSwipe,
}: {
  item: LightboxItem;
  stage: RefObject<HTMLDivElement | null>;
  zoomed: boolean;
  onZoom: (zoomed: boolean) => void;
  onSwipe: (direction: -1 | 1) => void;
}) {
  /** The image whose pixels have arrived: zooming centres on it once its natural size is known. */
  const [loaded, setLoaded] = useState<string>();
  const gestures = useStageGestures(stage, zoomed, onSwipe);
  useCentredZoom(stage, zoomed && loaded === item.key, item.key);
  // On the stage, not the image: zoomed, a press captures the pointer on the stage, so the image
  // never saw the second double-click and 100 % stayed. (Z and the button do the same by keyboard.)
  const doubleClick = { onDoubleClick: () => item.url && onZoom(!zoomed) };

  return (
    <div
      ref={stage}
      className={zoomed ? 'lightbox-stage zoomed' : 'lightbox-stage'}
      data-zoom={zoomed ? '100' : 'fit'}
      {...gestures}
      {...doubleClick}
    >
      <div className="lightbox-canvas">
        {item.url ? (
          <img
            key={item.key}
            src={item.url}
            alt={item.alt}
            className="lightbox-image"
            draggable={false}
            onLoad={() => setLoaded(item.key)}
          />
        ) : (
          <div className="lightbox-empty">
            <ImageIcon />
            <p>{item.note ?? 'No image.'}</p>
          </div>
        )}
      </div>
    </div>
  );
}
