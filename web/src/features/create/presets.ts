import { useCallback, useEffect, useState } from 'react';
import { api, messageOf } from '../../lib/api';
import { draftStore } from '../../lib/draft';
import type { Mode, Preset, PresetSettings } from '../../lib/types';
import { withSuffix } from './create-text';

/** Applies a preset to the Create form: its settings, and its suffix after the prompt. */
export function applyPreset(preset: PresetSettings): void {
  draftStore.set((draft) => ({
    ...draft,
    model: preset.model,
    ...(preset.mode ? { mode: preset.mode as Mode } : {}),
    aspect: preset.aspect,
    imageSize: preset.imageSize,
    count: preset.count,
    prompt: withSuffix(draft.prompt, preset.suffix),
  }));
}

/** The account's presets (server-side: every device has them), with save and delete. */
export function usePresets(active: boolean) {
  const [presets, setPresets] = useState<Preset[]>();
  const [error, setError] = useState<string>();
  const load = useCallback(async () => {
    try {
      setPresets((await api.get<{ presets: Preset[] }>('/web/api/presets')).presets);
      setError(undefined);
    } catch (failure) {
      setError(messageOf(failure));
    }
  }, []);
  useEffect(() => {
    if (active) void load();
  }, [active, load]);
  const save = useCallback(
    async (name: string, settings: PresetSettings) => {
      await api.put<Preset>(`/web/api/presets/${encodeURIComponent(name.trim())}`, settings);
      await load();
    },
    [load],
  );
  const remove = useCallback(
    async (name: string) => {
      await api.delete<void>(`/web/api/presets/${encodeURIComponent(name)}`);
      await load();
    },
    [load],
  );
  return { presets, error, save, remove };
}
