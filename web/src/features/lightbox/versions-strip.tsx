import { type KeyboardEvent, type RefObject, useId } from 'react';
import { Thumbnail } from '../../ui/thumbnail';
import { versionLabel, type WorkVersion } from './versions';

/** The keys that walk the strip, and where each goes from `index` of `count`. */
const WALK: Record<string, (index: number, count: number) => number> = {
  ArrowLeft: (index) => index - 1,
  ArrowRight: (index) => index + 1,
  ArrowUp: (index) => index - 1,
  ArrowDown: (index) => index + 1,
  Home: () => 0,
  End: (_index, count) => count - 1,
};

/**
 * The work's versions, oldest first, as thumbnails named by their instructions; the one shown is
 * marked (aria-current). One tab stop: the arrows, Home and End move along it, Enter shows the
 * focused version. A deleted version stays, dimmed and named so (its image is kept, as its parent).
 */
export function VersionsStrip({
  versions,
  currentId,
  pending,
  onShow,
  list,
}: {
  versions: readonly WorkVersion[];
  currentId: string | null;
  /** A new version is being made: a placeholder ends the strip. */
  pending: boolean;
  onShow: (version: WorkVersion) => void;
  list: RefObject<HTMLOListElement | null>;
}) {
  const heading = useId();
  const current = Math.max(
    0,
    versions.findIndex((v) => v.id === currentId),
  );
  const onKeyDown = (event: KeyboardEvent<HTMLOListElement>) => {
    const walk = WALK[event.key];
    if (!walk) return;
    // The strip's own arrows: not the lightbox's previous / next.
    event.preventDefault();
    event.stopPropagation();
    const buttons = [...(list.current?.querySelectorAll<HTMLButtonElement>('button.version') ?? [])];
    const from = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const to = Math.min(buttons.length - 1, Math.max(0, walk(from < 0 ? current : from, buttons.length)));
    buttons[to]?.focus();
  };
  return (
    <nav className="versions" aria-labelledby={heading}>
      <h3 id={heading} className="versions-title">
        Versions <span className="versions-count">({versions.length})</span>
      </h3>
      <ol ref={list} className="versions-strip" onKeyDown={onKeyDown}>
        {versions.map((version, index) => {
          const label = versionLabel(version, index);
          const image = version.images[0];
          const isCurrent = index === current;
          return (
            <li key={version.id}>
              <button
                type="button"
                className={version.removed ? 'version removed' : 'version'}
                aria-current={isCurrent ? 'true' : undefined}
                tabIndex={isCurrent ? 0 : -1}
                title={label}
                data-version-id={version.id}
                onClick={() => onShow(version)}
              >
                {image ? (
                  <Thumbnail src={image} alt={label} sizes="56px" width={160} loading="lazy" />
                ) : (
                  <span className="version-empty">
                    {index + 1}
                    <span className="visually-hidden">{label}</span>
                  </span>
                )}
              </button>
            </li>
          );
        })}
        {pending && (
          <li className="version-pending">
            <span className="version-empty" role="status">
              <span aria-hidden="true">…</span>
              <span className="visually-hidden">Version {versions.length + 1} is being made</span>
            </span>
          </li>
        )}
      </ol>
    </nav>
  );
}
