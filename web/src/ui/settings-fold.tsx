import { type ReactNode, useId, useState } from 'react';

/**
 * The Create form's settings, folded on a phone (≤ 640 px) to a one-line summary
 * ("base-image-2 · 1:1 · 1K · ×4") that unfolds them on a tap; wider screens always show them and
 * never the summary (CSS decides: the fold is only a phone's).
 */
export function SettingsFold({ summary, children }: { summary: string; children: ReactNode }) {
  const [folded, setFolded] = useState(true);
  const id = useId();
  return (
    <>
      <button
        type="button"
        className="settings-summary"
        aria-expanded={!folded}
        aria-controls={id}
        onClick={() => setFolded(!folded)}
      >
        <span>
          <span className="visually-hidden">Settings: </span>
          {summary}
        </span>
        <span className="settings-summary-hint">{folded ? 'Change' : 'Done'}</span>
      </button>
      <div id={id} className="settings-fold" data-folded={folded}>
        {children}
      </div>
    </>
  );
}
