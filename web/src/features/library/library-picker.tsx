import { useEffect, useState } from 'react';
import { api, messageOf } from '../../lib/api';
import type { DraftReference } from '../../lib/draft';
import { assetAlt, captionOf } from '../../lib/text';
import type { LibraryAsset, LibraryPage } from '../../lib/types';
import { Dialog } from '../../ui/dialog';
import { Thumbnail } from '../../ui/thumbnail';

const PICKER_PAGE = 48;

/**
 * A dialog listing the library, newest first, searchable by prompt or upload file name (the library endpoint's `q`)
 * and paged ("Show more" reads the next page); choosing an image makes it a reference.
 */
export function LibraryPicker({
  onPick,
  onClose,
}: {
  onPick: (reference: DraftReference) => void;
  onClose: () => void;
}) {
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [listing, setListing] = useState<{ items: LibraryAsset[]; more: boolean }>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    const q = search ? `&q=${encodeURIComponent(search)}` : '';
    api.get<LibraryPage>(`/web/api/assets?limit=${PICKER_PAGE}&page=${page}${q}`).then(
      (answer) =>
        live &&
        setListing((before) => ({
          items: page === 1 ? answer.items : [...(before?.items ?? []), ...answer.items],
          more: answer.page < answer.total_pages,
        })),
      (failure) => live && setError(messageOf(failure)),
    );
    return () => {
      live = false;
    };
  }, [search, page]);
  const items = listing?.items;
  const runSearch = () => {
    setError(undefined);
    setPage(1);
    setSearch(query.trim());
  };
  return (
    <Dialog title="Choose from your library" onClose={onClose} wide>
      {/* Not a form: the picker opens inside Create's form, and a nested submit would reach it. */}
      <div className="picker-search">
        <input
          type="search"
          aria-label="Search the library by prompt or file name"
          placeholder="Search by prompt or file name"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          onKeyDown={(event) => {
            if (event.key !== 'Enter') return;
            event.preventDefault();
            runSearch();
          }}
        />
        <button type="button" className="button small" onClick={runSearch}>
          Search
        </button>
      </div>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {!items && !error && <p className="muted">Loading…</p>}
      {items && items.length === 0 && (
        <p className="muted">
          {search
            ? `Nothing in your library matches “${search}”.`
            : 'Your library is empty: upload a reference or create an image first.'}
        </p>
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
                    name: captionOf(asset),
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
                  decoding="async"
                />
                <span className="picker-caption" title={captionOf(asset)}>
                  {asset.kind === 'result' ? 'Result' : (asset.name ?? 'Upload')} · {asset.width}×
                  {asset.height}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {listing?.more && (
        <button type="button" className="button" onClick={() => setPage((current) => current + 1)}>
          Show more
        </button>
      )}
    </Dialog>
  );
}
