import { useState } from 'react';
import { api, messageOf } from '../../lib/api';
import { ConfirmDialog } from '../../ui/dialog';

/** Deletes one of the account's uploads from the library (DELETE /web/api/assets/{id}). */
export async function deleteUpload(assetId: string): Promise<void> {
  await api.delete(`/web/api/assets/${encodeURIComponent(assetId)}`);
}

/** What deleting an upload does, said before it is done (the Library's card and the lightbox). */
export function UploadDeleteMessage({ name }: { name: string }) {
  return (
    <p>
      “{name.length > 120 ? `${name.slice(0, 120)}…` : name}” leaves your library. Works that used it as a
      reference keep it: its file stays at its link.
    </p>
  );
}

/** The Library card's confirmation before deleting an upload (focus on Cancel, like every delete). */
export function UploadDeleteDialog({
  assetId,
  name,
  onDeleted,
  onCancel,
}: {
  assetId: string;
  name: string;
  onDeleted: () => void;
  onCancel: () => void;
}) {
  const [state, setState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  return (
    <ConfirmDialog
      title="Delete this upload?"
      message={<UploadDeleteMessage name={name} />}
      confirmLabel="Delete"
      danger
      busy={state.busy}
      error={state.error}
      onConfirm={async () => {
        setState({ busy: true });
        try {
          await deleteUpload(assetId);
          onDeleted();
        } catch (failure) {
          setState({ busy: false, error: messageOf(failure) });
        }
      }}
      onCancel={onCancel}
    />
  );
}
