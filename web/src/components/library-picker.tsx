import { useEffect, useState } from 'react';
import { api, messageOf } from '../lib/api';
import type { DraftReference } from '../lib/draft';
import type { LibraryAsset, LibraryPage } from '../lib/types';
import { Dialog } from './dialog';
import { Thumbnail } from './thumbnail';

/** Alt text of a library image: the prompt for results, a description for uploads. */
export function assetAlt(asset: LibraryAsset): string {
  return asset.kind === 'result' && asset.prompt
    ? asset.prompt
    : `Uploaded image, ${asset.width} × ${asset.height}`;
}

/** A dialog listing the library's recent images; choosing one makes it a reference. */
export function LibraryPicker({
  onPick,
  onClose,
}: {
  onPick: (reference: DraftReference) => void;
  onClose: () => void;
}) {
  const [items, setItems] = useState<LibraryAsset[]>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    api.get<LibraryPage>('/web/api/assets?limit=48').then(
      (page) => setItems(page.items),
      (failure) => setError(messageOf(failure)),
    );
  }, []);
  return (
    <Dialog title="Choose from your library" onClose={onClose} wide>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {!items && !error && <p className="muted">Loading…</p>}
      {items && items.length === 0 && (
        <p className="muted">Your library is empty: upload a reference or create an image first.</p>
      )}
      {items && items.length > 0 && (
        <ul className="picker-grid">
          {items.map((asset) => (
            <li key={asset.id}>
              <button
                type="button"
                className="picker-item"
                onClick={() =>
                  onPick({
                    url: asset.url,
                    name: asset.kind === 'result' && asset.prompt ? asset.prompt : 'Uploaded image',
                    width: asset.width,
                    height: asset.height,
                    bytes: asset.bytes,
                  })
                }
              >
                <Thumbnail
                  src={asset.url}
                  width={asset.width}
                  sizes="120px"
                  alt={assetAlt(asset)}
                  loading="lazy"
                />
                <span className="picker-caption">
                  {asset.kind === 'result' ? 'Result' : 'Upload'} · {asset.width}×{asset.height}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </Dialog>
  );
}
