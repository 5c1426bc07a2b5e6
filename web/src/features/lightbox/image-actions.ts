import { useEffect, useState } from 'react';
import { api } from '../../lib/api';
import { loadCatalog } from '../../lib/catalog';
import type { OfferedAction } from '../../lib/types';
import type { LightboxCommand } from './shortcuts';

/**
 * The actions on a finished image (issue 45): upscale, vary, expand, remove the background and
 * reroll, each a new task linked to the image (the work's next version). Only what the model list's
 * `actions` names is offered: an action whose route the deployment lacks has no button and no key.
 */

/** What POST /web/api/works/{id}/actions takes. */
export interface ActionBody {
  action: OfferedAction['action'];
  scale?: number;
  strength?: 'subtle' | 'strong';
  factor?: number;
}

/** One button (and one key) of the actions: what it sends, what it is called, its lightbox command. */
export interface ActionChoice {
  command: LightboxCommand;
  label: string;
  /** A short label where space is tight (Create's grid: `U` / `V` and the image's number). */
  short: string;
  /** The key as the lightbox's table shows it (`U`, `Shift+U`). */
  key: string;
  /** What the status line says while the task is made. */
  progress: string;
  body: ActionBody;
}

/** Expand's canvas factor from the website (the API takes 1.25 to 2, or an aspect ratio). */
export const EXPAND_FACTOR = 1.5;

/** Every action the website can offer, in the order buttons show them; `offeredChoices` keeps the configured. */
const CHOICES: readonly (ActionChoice & { when: (offered: OfferedAction) => boolean })[] = [
  {
    command: 'upscale',
    label: 'Upscale ×2',
    short: 'U',
    key: 'U',
    progress: 'Upscaling ×2…',
    body: { action: 'upscale', scale: 2 },
    when: (o) => !o.scales || o.scales.includes(2),
  },
  {
    command: 'upscale4',
    label: 'Upscale ×4',
    short: 'U×4',
    key: 'Shift+U',
    progress: 'Upscaling ×4…',
    body: { action: 'upscale', scale: 4 },
    when: (o) => o.scales?.includes(4) === true,
  },
  {
    command: 'varySubtle',
    label: 'Vary (subtle)',
    short: 'V',
    key: 'Y',
    progress: 'Making a subtle variation…',
    body: { action: 'vary', strength: 'subtle' },
    when: (o) => !o.strengths || o.strengths.includes('subtle'),
  },
  {
    command: 'varyStrong',
    label: 'Vary (strong)',
    short: 'V+',
    key: 'Shift+Y',
    progress: 'Making a strong variation…',
    body: { action: 'vary', strength: 'strong' },
    when: (o) => !o.strengths || o.strengths.includes('strong'),
  },
  {
    command: 'expand',
    label: 'Expand',
    short: 'X',
    key: 'X',
    progress: 'Expanding the canvas…',
    body: { action: 'expand', factor: EXPAND_FACTOR },
    when: () => true,
  },
  {
    command: 'removeBackground',
    label: 'Remove background',
    short: 'B',
    key: 'B',
    progress: 'Removing the background…',
    body: { action: 'remove_background' },
    when: () => true,
  },
  {
    command: 'reroll',
    label: 'Reroll',
    short: 'R',
    key: 'Shift+R',
    progress: 'Rerolling with a new seed…',
    body: { action: 'reroll' },
    when: () => true,
  },
];

/** The choices the configured actions allow, in the table's order. */
export function offeredChoices(offered: readonly OfferedAction[]): ActionChoice[] {
  return CHOICES.filter((choice) =>
    offered.some((o) => o.action === choice.body.action && choice.when(o)),
  ).map(({ when: _when, ...choice }) => choice);
}

/** Every action command, configured or not (the `?` list leaves out those not offered). */
export const ACTION_COMMANDS: readonly LightboxCommand[] = CHOICES.map((choice) => choice.command);

/** The configured actions' choices, read with the model list (once per page load); none until read. */
export function useActionChoices(): ActionChoice[] {
  const [choices, setChoices] = useState<ActionChoice[]>([]);
  useEffect(() => {
    let live = true;
    loadCatalog().then(
      (catalog) => live && setChoices(offeredChoices(catalog.actions)),
      () => undefined, // no model list, no actions: the rest of the page works on
    );
    return () => {
      live = false;
    };
  }, []);
  return choices;
}

/**
 * Runs an action on an image (`id`: its task `tsk_…`, or its work `gen_…` for the work's first
 * finished image); answers the new tasks' ids.
 */
export async function submitAction(id: string, body: ActionBody): Promise<string[]> {
  const { task_ids } = await api.post<{ task_ids: string[] }>(
    `/web/api/works/${encodeURIComponent(id)}/actions`,
    body,
  );
  if (task_ids.length === 0) throw new Error('No task was created.');
  return task_ids;
}

/** "Upscaled ×2", "Varied (strong)", "Expanded ×1.5", "Background removed", "Rerolled": a work's action. */
export function actionSummary(action: string, options: Record<string, unknown> | null | undefined): string {
  const o = options ?? {};
  if (action === 'upscale') return `Upscaled ×${String(o.scale ?? 2)}`;
  if (action === 'vary') return `Varied (${String(o.strength ?? 'subtle')})`;
  if (action === 'expand')
    return o.aspect ? `Expanded to ${String(o.aspect)}` : `Expanded ×${String(o.factor ?? EXPAND_FACTOR)}`;
  if (action === 'remove_background') return 'Background removed';
  if (action === 'reroll') return 'Rerolled';
  return action;
}
