/**
 * The lightbox's keyboard shortcuts: one table for the key handler (lightbox.tsx) and the `?` list
 * (shortcuts-dialog.tsx); docs/website.md's table is held to it by shortcuts.test.ts.
 */

/** What a shortcut does; the lightbox maps each command to its handler for the item shown. */
export type LightboxCommand =
  | 'step'
  | 'edge'
  | 'zoom'
  | 'pan'
  | 'compare'
  | 'details'
  | 'download'
  | 'star'
  | 'copyPrompt'
  | 'copyLink'
  | 'reuse'
  | 'reference'
  | 'refine'
  | 'versions'
  | 'delete'
  | 'shortcuts'
  | 'close';

export interface Shortcut {
  /** The keys as the list shows them (`←`, `Z`, `Esc`). */
  keys: readonly string[];
  /** What the list says they do. */
  action: string;
  command: LightboxCommand;
}

export const SHORTCUTS: readonly Shortcut[] = [
  {
    keys: ['←', '→'],
    action: 'Previous / next image (at the end of a loaded page, the next page loads)',
    command: 'step',
  },
  { keys: ['Home', 'End'], action: 'First / last loaded image', command: 'edge' },
  { keys: ['Z'], action: 'Zoom to 100 % (actual pixels) / fit to the screen', command: 'zoom' },
  { keys: ['←', '→', '↑', '↓'], action: 'While zoomed: pan (so do dragging and scrolling)', command: 'pan' },
  {
    keys: ['K'],
    action: 'Compare: this image beside the next (← → change the second; a slider for two)',
    command: 'compare',
  },
  { keys: ['I'], action: 'Show or hide the details', command: 'details' },
  { keys: ['D'], action: 'Download', command: 'download' },
  { keys: ['S'], action: 'Star or unstar the work', command: 'star' },
  { keys: ['C'], action: 'Copy the prompt', command: 'copyPrompt' },
  { keys: ['L'], action: "Copy the image's link", command: 'copyLink' },
  { keys: ['R'], action: 'Reuse settings (fills Create)', command: 'reuse' },
  { keys: ['E', 'U'], action: 'Use as reference (in Create)', command: 'reference' },
  {
    keys: ['N'],
    action: 'Refine: the next version from an instruction (Enter makes it, Esc closes the field)',
    command: 'refine',
  },
  { keys: ['V'], action: "The work's versions (← → walk them, Enter shows one)", command: 'versions' },
  { keys: ['Delete', 'Backspace'], action: 'Delete the work, or an upload (asks first)', command: 'delete' },
  { keys: ['?'], action: 'This list', command: 'shortcuts' },
  { keys: ['Esc'], action: 'Close', command: 'close' },
];

/** The `KeyboardEvent.key` of a key as the list shows it (a letter: lower case). */
const EVENT_KEYS: Record<string, string> = {
  '←': 'ArrowLeft',
  '→': 'ArrowRight',
  '↑': 'ArrowUp',
  '↓': 'ArrowDown',
  Esc: 'Escape',
};
export const eventKeyOf = (key: string): string =>
  EVENT_KEYS[key] ?? (key.length === 1 ? key.toLowerCase() : key);

/** A key event's name as the table holds it: a single character in lower case (`Z` and `z` alike). */
export const normalKey = (key: string): string => (key.length === 1 ? key.toLowerCase() : key);

/** A handler for a key: absent where the command does nothing for the item shown (the next row is asked). */
export type CommandHandler = ((eventKey: string) => void) | undefined;

/**
 * The handler `key` (a `KeyboardEvent.key`) runs: the first row holding the key whose command has a
 * handler now (← and → step, or pan while zoomed, as the handlers decide); undefined for none.
 */
export function handlerFor(
  key: string,
  handlers: Partial<Record<LightboxCommand, CommandHandler>>,
): (() => void) | undefined {
  const pressed = normalKey(key);
  for (const { keys, command } of SHORTCUTS) {
    const handler = handlers[command];
    if (handler && keys.some((shown) => eventKeyOf(shown) === pressed)) return () => handler(pressed);
  }
  return undefined;
}
