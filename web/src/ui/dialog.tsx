import { type ReactNode, useEffect, useId, useRef } from 'react';
import { CloseIcon } from './icons';

/**
 * A modal on the native <dialog>: the browser traps focus, closes on Escape and restores focus
 * to the opener. A click on the backdrop closes it too.
 */
export function Dialog({
  title,
  onClose,
  children,
  wide = false,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (dialog && !dialog.open) dialog.showModal();
    // showModal() focuses the first focusable element (the ✕); a dialog that names its starting
    // point (data-autofocus, e.g. a confirmation's Cancel) starts there instead.
    dialog?.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    // Unmounting removes the dialog from the top layer; calling close() here instead would fire
    // `close` and so onClose, which a remount (React StrictMode) must not do. Focus goes back to
    // the opener, as the native close would have done.
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, []);

  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the click only catches the backdrop; Escape (native to <dialog>) is its keyboard twin.
    <dialog
      ref={ref}
      className={wide ? 'dialog dialog-wide' : 'dialog'}
      aria-labelledby={titleId}
      onClose={onClose}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        if (event.target === ref.current) onClose();
      }}
    >
      <div className="dialog-body">
        <header className="dialog-header">
          <h2 id={titleId}>{title}</h2>
          <button type="button" className="icon-button" onClick={onClose} aria-label="Close">
            <CloseIcon />
          </button>
        </header>
        {children}
      </div>
    </dialog>
  );
}

/** A yes/no question in a dialog; the safe answer has focus. */
export function ConfirmDialog({
  title,
  message,
  confirmLabel,
  danger = false,
  busy = false,
  error,
  onConfirm,
  onCancel,
}: {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  error?: string | undefined;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <Dialog title={title} onClose={onCancel}>
      <div className="stack">
        <div>{message}</div>
        {error && (
          <p className="error-text" role="alert">
            {error}
          </p>
        )}
        <div className="row end">
          {/* In a confirmation, focus belongs on the safe answer (WAI-ARIA dialog pattern): Dialog focuses it. */}
          <button type="button" className="button" onClick={onCancel} data-autofocus>
            Cancel
          </button>
          <button
            type="button"
            className={danger ? 'button danger' : 'button primary'}
            onClick={onConfirm}
            disabled={busy}
          >
            {busy ? 'Working…' : confirmLabel}
          </button>
        </div>
      </div>
    </Dialog>
  );
}
