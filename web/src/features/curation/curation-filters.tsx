import { useState } from 'react';
import { ManageCollectionsDialog } from './collections-dialog';
import type { Collections } from './curation';
import { StarIcon } from './star-icon';
import './curation.css';

/** The filters of saved works by star and collection, kept in the URL (`starred=1`, `collection=<id>`). */
export interface CurationFilter {
  starred: boolean;
  collection: string;
}

export function curationFromUrl(params: URLSearchParams): CurationFilter {
  return { starred: params.get('starred') === '1', collection: params.get('collection') ?? '' };
}

/** The URL's fields of the filter (for `searchToUrl`'s extra). */
export function curationToUrl(filter: CurationFilter): Record<string, string> {
  return { starred: filter.starred ? '1' : '', collection: filter.collection };
}

/** The API's query fields of the filter. */
export function curationToApi(filter: CurationFilter): string {
  return `${filter.starred ? '&starred=true' : ''}${filter.collection ? `&collection=${encodeURIComponent(filter.collection)}` : ''}`;
}

export function CurationFilters({
  value,
  onChange,
  collections,
}: {
  value: CurationFilter;
  onChange: (next: CurationFilter) => void;
  collections: Collections;
}) {
  const [managing, setManaging] = useState(false);
  return (
    <div className="curation-filters">
      <button
        type="button"
        className={`button small star-filter${value.starred ? ' starred' : ''}`}
        aria-pressed={value.starred}
        onClick={() => onChange({ ...value, starred: !value.starred })}
      >
        <StarIcon filled={value.starred} /> Starred
      </button>
      <label className="collection-filter">
        <span>Collection</span>
        <select
          value={value.collection}
          onChange={(event) => onChange({ ...value, collection: event.target.value })}
        >
          <option value="">All works</option>
          {collections.collections.map((collection) => (
            <option key={collection.id} value={collection.id}>
              {collection.name} ({collection.count})
            </option>
          ))}
        </select>
      </label>
      <button type="button" className="button small" onClick={() => setManaging(true)}>
        Manage collections
      </button>
      {managing && (
        <ManageCollectionsDialog
          collections={collections}
          onClose={() => setManaging(false)}
          onDeleted={(id) => {
            if (value.collection === id) onChange({ ...value, collection: '' });
          }}
        />
      )}
    </div>
  );
}
