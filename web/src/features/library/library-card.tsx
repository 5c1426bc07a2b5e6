import { memo } from 'react';
import { addDraftReference } from '../../lib/draft';
import { downloadName, formatBytes, formatDate, formatWhen } from '../../lib/format';
import { navigate } from '../../lib/router';
import { assetAlt, captionOf, shortText } from '../../lib/text';
import type { LibraryAsset } from '../../lib/types';
import { DownloadIcon } from '../../ui/icons';
import { Thumbnail } from '../../ui/thumbnail';
import { SelectCheckbox } from '../curation/select-checkbox';
import type { Selection } from '../curation/selection';
import { AssetCardActions } from './asset-card-actions';

/** Sends an asset to the Create form as a reference and goes there. */
function sendToCreate(asset: LibraryAsset) {
  addDraftReference({
    url: asset.url,
    name: captionOf(asset),
    width: asset.width,
    height: asset.height,
    bytes: asset.bytes,
  });
  navigate('/');
}

/**
 * A card of the Library: select box, thumbnail (opens the lightbox), caption, size and date, and its
 * actions. Memoised like a work's card: a page arriving or another card selected leaves it alone.
 */
export const LibraryCard = memo(function LibraryCard({
  asset,
  selected,
  toggle,
  onView,
  onDeleteUpload,
}: {
  asset: LibraryAsset;
  selected: boolean;
  toggle: Selection['toggle'];
  onView: (asset: LibraryAsset) => void;
  onDeleteUpload: (asset: LibraryAsset) => void;
}) {
  return (
    <li className="asset-card" data-asset-id={asset.id}>
      <SelectCheckbox id={asset.id} label={shortText(assetAlt(asset))} selected={selected} toggle={toggle} />
      <button
        type="button"
        className="asset-thumb image-button"
        onClick={() => onView(asset)}
        // The badge it shows is part of its name (WCAG 2.5.3, label in name).
        aria-label={`Open: ${shortText(assetAlt(asset))}, ${asset.kind === 'result' ? 'Result' : 'Upload'}`}
      >
        <Thumbnail
          src={asset.url}
          width={asset.width}
          height={asset.height}
          sizes="(max-width: 640px) 50vw, 220px"
          alt={assetAlt(asset)}
          loading="lazy"
          decoding="async"
        />
        <span className={`badge kind-${asset.kind}`}>{asset.kind === 'result' ? 'Result' : 'Upload'}</span>
      </button>
      <div className="asset-body">
        <p className="asset-caption" title={captionOf(asset)}>
          {captionOf(asset)}
        </p>
        <p className="asset-meta">
          {asset.width} × {asset.height} · {formatBytes(asset.bytes)} ·{' '}
          <time dateTime={new Date(asset.createdAt).toISOString()} title={formatDate(asset.createdAt)}>
            {formatWhen(asset.createdAt)}
          </time>
        </p>
        <div className="card-actions asset-actions">
          <button
            type="button"
            className="button small primary-soft"
            onClick={() => sendToCreate(asset)}
            aria-label={`Use as reference: ${shortText(assetAlt(asset))}`}
          >
            Use as reference
          </button>
          <a
            className="icon-button"
            href={asset.url}
            download={downloadName(assetAlt(asset), asset.id, asset.url)}
            aria-label={`Download: ${shortText(assetAlt(asset))}`}
            title="Download"
          >
            <DownloadIcon />
          </a>
          <AssetCardActions asset={asset} name={captionOf(asset)} onDelete={() => onDeleteUpload(asset)} />
        </div>
      </div>
    </li>
  );
});
