import { Link } from '../../lib/router';
import { shortText } from '../../lib/text';
import type { LibraryAsset } from '../../lib/types';
import { LinkIcon, TrashIcon } from '../../ui/icons';
import { workLink } from '../lightbox/lightbox-items';

/**
 * The Library card's own actions besides "Use as reference" and Download (issue 30): a result links
 * back to its work (`/works?work=<id>`, opened in Saved works' lightbox); an upload can be deleted
 * (`onDelete` opens the confirmation).
 */
export function AssetCardActions({
  asset,
  name,
  onDelete,
}: {
  asset: LibraryAsset;
  /** What the card is called (its caption). */
  name: string;
  onDelete: () => void;
}) {
  if (asset.kind === 'result' && asset.generationId)
    return (
      <Link
        className="icon-button"
        href={workLink(asset.generationId)}
        aria-label={`Open the work: ${shortText(name)}`}
        title="Open the work in Saved works"
      >
        <LinkIcon />
      </Link>
    );
  if (asset.kind !== 'upload') return null;
  return (
    <button
      type="button"
      className="icon-button danger-text"
      onClick={onDelete}
      aria-label={`Delete: ${shortText(name)}`}
      title="Delete"
    >
      <TrashIcon />
    </button>
  );
}
