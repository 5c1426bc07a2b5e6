import { type ClipboardEvent, useState } from 'react';
import { pasteWithin } from '../../lib/text';

/**
 * A text field's paste past `max` characters: instead of maxLength's silent cut (mid-word), the
 * paste is cut at its last word that fits, `onValue` gets the result, and `message` says so
 * until the next edit (`clear`).
 */
export function useLimitedPaste(max: number, onValue: (value: string) => void) {
  const [message, setMessage] = useState<string>();
  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement | HTMLInputElement>) => {
    const field = event.currentTarget;
    const text = event.clipboardData.getData('text/plain');
    const start = field.selectionStart ?? field.value.length;
    const next = pasteWithin(field.value, text, start, field.selectionEnd ?? start, max);
    if (!next.cut) return;
    event.preventDefault();
    onValue(next.value);
    const left = text.length - (next.caret - start);
    setMessage(
      `The paste was cut to fit the ${max.toLocaleString('en')}-character limit: ${left.toLocaleString('en')} characters were left out.`,
    );
    requestAnimationFrame(() => field.setSelectionRange(next.caret, next.caret));
  };
  return { message, onPaste, clear: () => setMessage(undefined) };
}
