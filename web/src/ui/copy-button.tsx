import { useEffect, useState } from 'react';
import { CheckIcon, CopyIcon } from './icons';

/** Copies text to the clipboard; says so for a moment (visibly and to screen readers). */
export function CopyButton({
  text,
  label = 'Copy',
  className = 'button',
  iconOnly = false,
}: {
  text: string;
  label?: string;
  className?: string;
  /** Just the icon: the label becomes its accessible name and tooltip. */
  iconOnly?: boolean;
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(timer);
  }, [state]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };

  const said = state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed — select and copy' : label;
  if (iconOnly) {
    return (
      <button type="button" className="icon-button" onClick={copy} aria-label={label} title={said}>
        {state === 'copied' ? <CheckIcon /> : <CopyIcon />}
        <span className="visually-hidden" aria-live="polite">
          {state === 'idle' ? '' : said}
        </span>
      </button>
    );
  }
  return (
    <button type="button" className={className} onClick={copy}>
      {state === 'copied' ? <CheckIcon /> : <CopyIcon />}
      <span aria-live="polite">{said}</span>
    </button>
  );
}
