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
  | 'upscale'
  | 'upscale4'
  | 'varySubtle'
  | 'varyStrong'
  | 'expand'
  | 'removeBackground'
  | 'reroll'
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
  { keys: ['E'], action: 'Use as reference (in Create)', command: 'reference' },
  {
    keys: ['N'],
    action: 'Refine: the next version from an instruction (Enter makes it, Esc closes the field)',
    command: 'refine',
  },
  { keys: ['V'], action: "The work's versions (← → walk them, Enter shows one)", command: 'versions' },
  // The actions on the image (issue 45): each makes the work's next version; listed when configured.
  { keys: ['U'], action: 'Upscale ×2 (the next version)', command: 'upscale' },
  { keys: ['Shift+U'], action: 'Upscale ×4', command: 'upscale4' },
  { keys: ['Y'], action: 'Vary (subtle)', command: 'varySubtle' },
  { keys: ['Shift+Y'], action: 'Vary (strong)', command: 'varyStrong' },
  { keys: ['X'], action: 'Expand (the canvas ×1.5, the border filled)', command: 'expand' },
  { keys: ['B'], action: 'Remove the background (a transparent PNG)', command: 'removeBackground' },
  { keys: ['Shift+R'], action: 'Reroll: the same settings, a new seed', command: 'reroll' },
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
  EVENT_KEYS[key] ?? (key.length === 1 || key.startsWith('Shift+') ? key.toLowerCase() : key);

/** A key event's name as the table holds it: a single character in lower case (`Z` and `z` alike). */
export const normalKey = (key: string): string => (key.length === 1 ? key.toLowerCase() : key);

/** `shift+u` for Shift and a letter (the table's `Shift+U`); undefined for any other key. */
const shiftedKey = (key: string, shift: boolean): string | undefined =>
  shift && /^[a-z]$/i.test(key) ? `shift+${key.toLowerCase()}` : undefined;

/** A handler for a key: absent where the command does nothing for the item shown (the next row is asked). */
export type CommandHandler = ((eventKey: string) => void) | undefined;

/**
 * The handler `key` (a `KeyboardEvent.key`) runs: the first row holding the key whose command has a
 * handler now (← and → step, or pan while zoomed, as the handlers decide); undefined for none.
 * With Shift, a letter some row lists as `Shift+…` is only that row's; another letter is itself.
 */
export function handlerFor(
  key: string,
  handlers: Partial<Record<LightboxCommand, CommandHandler>>,
  shift = false,
): (() => void) | undefined {
  const shifted = shiftedKey(key, shift);
  const listed = shifted && SHORTCUTS.some(({ keys }) => keys.some((shown) => eventKeyOf(shown) === shifted));
  const pressed = listed ? shifted : normalKey(key);
  for (const { keys, command } of SHORTCUTS) {
    const handler = handlers[command];
    if (handler && keys.some((shown) => eventKeyOf(shown) === pressed)) return () => handler(pressed);
  }
  return undefined;
}
