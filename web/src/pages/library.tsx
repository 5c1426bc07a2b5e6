import { useCallback, useEffect, useRef, useState } from 'react';
import { ChoiceGroup } from '../components/choice-group';
import { DownloadIcon } from '../components/icons';
import { ImageViewer } from '../components/image-viewer';
import { assetAlt } from '../components/library-picker';
import { api, messageOf } from '../lib/api';
import { addDraftReference } from '../lib/draft';
import { downloadName, formatBytes, formatDate, formatWhen } from '../lib/format';
import { navigate, useLocation } from '../lib/router';
import type { LibraryAsset, LibraryPage as LibraryPageAnswer } from '../lib/types';

const PAGE_SIZE = 30;
type Kind = '' | 'upload' | 'result';

/** Sends an asset to the Create form as a reference and goes there. */
function sendToCreate(asset: LibraryAsset) {
  addDraftReference({
    url: asset.url,
    name: asset.kind === 'result' && asset.prompt ? asset.prompt : 'Uploaded image',
    width: asset.width,
    height: asset.height,
    bytes: asset.bytes,
  });
  navigate('/');
}

/** The asset library: every uploaded reference and every result, filterable by kind. */
export default function LibraryPage() {
  const { search } = useLocation();
  const kindParam = search.get('kind');
  const kind: Kind = kindParam === 'upload' || kindParam === 'result' ? kindParam : '';
  const [items, setItems] = useState<LibraryAsset[]>([]);
  const [total, setTotal] = useState<number>();
  const [page, setPage] = useState(0);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string>();
  const [viewing, setViewing] = useState<LibraryAsset>();
  const generation = useRef(0);
  const hasMore = total === undefined || items.length < total;

  const load = useCallback(
    async (next: number, replace: boolean) => {
      const mine = ++generation.current;
      setLoading(true);
      setError(undefined);
      try {
        const result = await api.get<LibraryPageAnswer>(
          `/web/api/assets?page=${next}&limit=${PAGE_SIZE}${kind ? `&kind=${kind}` : ''}`,
        );
        if (mine !== generation.current) return; // the filter changed meanwhile
        setItems((list) =>
          replace ? result.items : [...list, ...result.items.filter((a) => !list.some((b) => b.id === a.id))],
        );
        setTotal(result.total);
        setPage(next);
      } catch (failure) {
        if (mine === generation.current) setError(messageOf(failure));
      } finally {
        if (mine === generation.current) setLoading(false);
      }
    },
    [kind],
  );

  useEffect(() => {
    void load(1, true);
  }, [load]);

  return (
    <div className="page">
      <header className="page-header">
        <h1 className="page-title">Library</h1>
        {total !== undefined && <p className="muted">{total === 1 ? '1 image' : `${total} images`}</p>}
      </header>
      <ChoiceGroup
        legend="Show"
        name="kind"
        value={kind}
        onChange={(value) => navigate(value ? `/library?kind=${value}` : '/library', { replace: true })}
        choices={[
          { value: '', label: 'All' },
          { value: 'upload', label: 'Uploads' },
          { value: 'result', label: 'Results' },
        ]}
      />
      {total === 0 && !loading && (
        <div className="empty">
          <p>
            {kind === 'upload'
              ? 'No uploads yet.'
              : kind === 'result'
                ? 'No results yet.'
                : 'Your library is empty.'}
          </p>
          <p className="muted small">Reference images you upload and every image you create land here.</p>
        </div>
      )}
      <ul className="library-grid">
        {items.map((asset) => (
          <li key={asset.id} className="asset-card">
            <button
              type="button"
              className="asset-thumb image-button"
              onClick={() => setViewing(asset)}
              aria-label={`Open: ${assetAlt(asset)}`}
            >
              <img src={asset.url} alt={assetAlt(asset)} loading="lazy" decoding="async" />
              <span className={`badge kind-${asset.kind}`}>
                {asset.kind === 'result' ? 'Result' : 'Upload'}
              </span>
            </button>
            <div className="asset-body">
              <p className="asset-meta">
                {asset.width} × {asset.height} · {formatBytes(asset.bytes)} ·{' '}
                <time dateTime={new Date(asset.createdAt).toISOString()} title={formatDate(asset.createdAt)}>
                  {formatWhen(asset.createdAt)}
                </time>
              </p>
              <div className="card-actions">
                <button
                  type="button"
                  className="button small primary-soft"
                  onClick={() => sendToCreate(asset)}
                  aria-label={`Use as reference: ${assetAlt(asset)}`}
                >
                  Use as reference
                </button>
                <a
                  className="icon-button"
                  href={asset.url}
                  download={downloadName(assetAlt(asset), asset.id, asset.url)}
                  aria-label={`Download: ${assetAlt(asset)}`}
                  title="Download"
                >
                  <DownloadIcon />
                </a>
              </div>
            </div>
          </li>
        ))}
      </ul>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {hasMore && total !== undefined && (
        <div className="load-more">
          <button type="button" className="button" onClick={() => load(page + 1, false)} disabled={loading}>
            {loading ? 'Loading…' : 'Load more'}
          </button>
        </div>
      )}
      {viewing && (
        <ImageViewer
          url={viewing.url}
          alt={assetAlt(viewing)}
          id={viewing.id}
          width={viewing.width}
          height={viewing.height}
          bytes={viewing.bytes}
          onClose={() => setViewing(undefined)}
          actions={
            <button type="button" className="button" onClick={() => sendToCreate(viewing)}>
              Use as reference
            </button>
          }
        />
      )}
    </div>
  );
}
