import type { RefObject } from 'react';

/**
 * The end of a paged list: the last load's error, and while more pages remain (`more`), a Load
 * more button in the element infinite scroll watches (`sentinel`), saying Try again after an error.
 */
export function LoadMore({
  sentinel,
  more,
  loading,
  error,
  onLoadMore,
}: {
  sentinel: RefObject<HTMLDivElement | null>;
  more: boolean;
  loading: boolean;
  error: string | undefined;
  onLoadMore: () => void;
}) {
  return (
    <>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {more && (
        <div ref={sentinel} className="load-more">
          <button type="button" className="button" onClick={onLoadMore} disabled={loading}>
            {loading ? 'Loading…' : error ? 'Try again' : 'Load more'}
          </button>
        </div>
      )}
    </>
  );
}
