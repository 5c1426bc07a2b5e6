import type { ReactNode, RefObject } from 'react';
import { downloadName } from '../../lib/format';
import { shortText } from '../../lib/text';
import { ConfirmDialog } from '../../ui/dialog';
import { CopyIcon, DownloadIcon, LibraryIcon, LinkIcon, ReuseIcon, TrashIcon } from '../../ui/icons';
import type { LightboxItem } from './lightbox-items';
import { UploadDeleteMessage } from './upload-delete';

/** What the lightbox can do to its image; each has a key (shown beside its label). */
export interface LightboxActionHandlers {
  copyPrompt?: (() => void) | undefined;
  copyLink: () => void;
  reuse?: (() => void) | undefined;
  useAsReference?: (() => void) | undefined;
  remove?: (() => void) | undefined;
}

function Key({ children }: { children: string }) {
  return (
    <span className="lightbox-key" aria-hidden="true">
      {children}
    </span>
  );
}

/**
 * The lightbox's actions, each with its shortcut. `extra` is the slot for actions other features
 * add (a favourite's star): rendered first, with the same look.
 */
export function LightboxActions({
  item,
  handlers,
  download,
  extra,
}: {
  item: LightboxItem;
  handlers: LightboxActionHandlers;
  download: RefObject<HTMLAnchorElement | null>;
  extra?: ReactNode;
}) {
  return (
    <div className="lightbox-actions">
      {extra}
      {item.url && (
        <a
          ref={download}
          className="button small"
          href={item.url}
          download={downloadName(item.caption ?? item.alt, item.key, item.url)}
          aria-keyshortcuts="D"
        >
          <DownloadIcon /> Download <Key>D</Key>
        </a>
      )}
      {handlers.copyPrompt && (
        <button type="button" className="button small" onClick={handlers.copyPrompt} aria-keyshortcuts="C">
          <CopyIcon /> Copy prompt <Key>C</Key>
        </button>
      )}
      {item.url && (
        <button type="button" className="button small" onClick={handlers.copyLink} aria-keyshortcuts="L">
          <LinkIcon /> Copy link <Key>L</Key>
        </button>
      )}
      {handlers.reuse && (
        <button type="button" className="button small" onClick={handlers.reuse} aria-keyshortcuts="R">
          <ReuseIcon /> Reuse settings <Key>R</Key>
        </button>
      )}
      {handlers.useAsReference && (
        <button
          type="button"
          className="button small"
          onClick={handlers.useAsReference}
          aria-keyshortcuts="E"
        >
          <LibraryIcon /> Use as reference <Key>E</Key>
        </button>
      )}
      {handlers.remove && (
        <button
          type="button"
          className="button small danger-text"
          onClick={handlers.remove}
          aria-keyshortcuts="Delete Backspace"
        >
          <TrashIcon /> Delete <Key>Del</Key>
        </button>
      )}
    </div>
  );
}

/** The lightbox's Delete asks first: what leaves (a work with all its images, or an upload). */
export function DeleteConfirm({
  item,
  state,
  onConfirm,
  onCancel,
}: {
  item: LightboxItem;
  state: { busy: boolean; error?: string };
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <ConfirmDialog
      title={item.kind === 'upload' ? 'Delete this upload?' : 'Delete this work?'}
      message={
        item.kind === 'upload' ? (
          <UploadDeleteMessage name={item.caption ?? item.alt} />
        ) : (
          <p>
            “{shortText(item.settings?.prompt ?? item.alt, 120)}” leaves your saved works and library
            {item.settings && item.settings.count > 1 ? ', with all its images' : ''}. The API history keeps a
            record of it, marked removed.
          </p>
        )
      }
      confirmLabel="Delete"
      danger
      busy={state.busy}
      error={state.error}
      onConfirm={onConfirm}
      onCancel={onCancel}
    />
  );
}
