import { type DragEvent, useEffect, useId, useRef, useState } from 'react';
import { api, messageOf } from '../../lib/api';
import type { DraftReference } from '../../lib/draft';
import { formatBytes } from '../../lib/format';
import type { UploadResult } from '../../lib/types';
import { CloseIcon, LibraryIcon, LinkIcon, UploadIcon } from '../../ui/icons';
import { LibraryPicker } from '../library/library-picker';

const ACCEPT = 'image/png,image/jpeg,image/webp,image/gif,image/bmp';

interface Pending {
  id: number;
  name: string;
}

let nextPendingId = 1;

/** Uploads a file to /api/v1/upload (multipart) and returns it as a draft reference. */
async function uploadFile(file: File): Promise<DraftReference> {
  const form = new FormData();
  form.append('file', file, file.name || 'pasted-image');
  const result = await api.post<UploadResult>('/api/v1/upload', form);
  return { url: result.url, name: file.name || 'Pasted image', bytes: result.bytes };
}

/** Asks Atelier to fetch and re-host an image from a public URL. */
async function uploadUrl(url: string): Promise<DraftReference> {
  const result = await api.post<UploadResult>('/api/v1/upload', { source_url: url });
  const name = (() => {
    try {
      return decodeURIComponent(new URL(url).pathname.split('/').pop() || '') || new URL(url).host;
    } catch {
      return url;
    }
  })();
  return { url: result.url, name, bytes: result.bytes };
}

/**
 * The reference images of the Create form: drop, pick, paste (anywhere on the page), a URL, or
 * one from the library. Every image is uploaded first, so the request carries Atelier URLs only.
 */
export function ReferencePicker({
  references,
  mode,
  maxReferences,
  onAdd,
  onRemove,
}: {
  references: DraftReference[];
  mode: string;
  maxReferences: number;
  onAdd: (reference: DraftReference) => void;
  onRemove: (url: string) => void;
}) {
  const uploads = useReferenceUploads(mode, onAdd);
  const { pending, error, setError, notice, track, addFiles } = uploads;
  const [dragging, setDragging] = useState(false);
  const [urlOpen, setUrlOpen] = useState(false);
  const [url, setUrl] = useState('');
  const [pickerOpen, setPickerOpen] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const ids = { section: useId(), hint: useId() };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const files = [...event.dataTransfer.files].filter((f) => f.type.startsWith('image/'));
    if (files.length > 0) return addFiles(files);
    const dropped = event.dataTransfer.getData('text/uri-list') || event.dataTransfer.getData('text/plain');
    if (/^https?:\/\//i.test(dropped.trim())) void track(dropped.trim(), () => uploadUrl(dropped.trim()));
    else setError('Drop an image file (PNG, JPEG, WebP, GIF or BMP) or an image link');
  };

  return (
    <section className="field" aria-labelledby={ids.section}>
      <div className="field-label-row">
        <h3 className="field-label" id={ids.section}>
          Reference images
        </h3>
        <span className="muted small" id={ids.hint}>
          {needOf(mode, maxReferences)}
        </span>
      </div>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: dropping is pointer-only by nature; the buttons inside are its keyboard equivalents. */}
      <div
        className={dragging ? 'dropzone dragging' : 'dropzone'}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        {references.length > 0 || pending.length > 0 ? (
          <ReferenceList references={references} pending={pending} mode={mode} onRemove={onRemove} />
        ) : (
          <p className="dropzone-hint">Drop images here, paste one from the clipboard, or choose below.</p>
        )}
        <div className="row wrap tight">
          <button type="button" className="button small" onClick={() => fileInput.current?.click()}>
            <UploadIcon /> Choose files
          </button>
          <button
            type="button"
            className="button small"
            aria-expanded={urlOpen}
            onClick={() => setUrlOpen((open) => !open)}
          >
            <LinkIcon /> From a link
          </button>
          <button type="button" className="button small" onClick={() => setPickerOpen(true)}>
            <LibraryIcon /> From library
          </button>
          <input
            ref={fileInput}
            type="file"
            accept={ACCEPT}
            multiple={mode === 'fusion'}
            className="visually-hidden"
            tabIndex={-1}
            aria-label="Reference image file"
            data-testid="reference-file"
            onChange={(event) => {
              addFiles(event.target.files ?? []);
              event.target.value = '';
            }}
          />
        </div>
        {urlOpen && (
          <UrlRow
            url={url}
            setUrl={setUrl}
            track={track}
            setError={setError}
            onAdded={() => setUrlOpen(false)}
          />
        )}
      </div>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      <p className={notice ? 'notice-text' : 'visually-hidden'} role="status">
        {notice}
      </p>
      {pickerOpen && (
        <LibraryPicker
          onPick={(asset) => {
            onAdd(asset);
            setPickerOpen(false);
          }}
          onClose={() => setPickerOpen(false)}
        />
      )}
    </section>
  );
}

/** What the mode takes, said beside the heading. */
function needOf(mode: string, maxReferences: number): string {
  return mode === 'edit'
    ? 'Edit uses exactly one reference image.'
    : mode === 'fusion'
      ? `Fusion blends 2 to ${maxReferences} reference images.`
      : 'Text to image takes no reference; adding one switches to Edit.';
}

/**
 * The uploads under way and what they said: `track` runs one (shown as pending until it ends),
 * `addFiles` keeps what the mode takes; an image pasted anywhere on the page is added too.
 */
function useReferenceUploads(mode: string, onAdd: (reference: DraftReference) => void) {
  const [pending, setPending] = useState<Pending[]>([]);
  const [error, setError] = useState<string>();
  /** Said when some of several files were left out (Edit takes one image). */
  const [notice, setNotice] = useState<string>();

  async function track(name: string, work: () => Promise<DraftReference>): Promise<boolean> {
    const id = nextPendingId++;
    setPending((list) => [...list, { id, name }]);
    setError(undefined);
    try {
      onAdd(await work());
      return true;
    } catch (failure) {
      setError(`${name}: ${messageOf(failure)}`);
      return false;
    } finally {
      setPending((list) => list.filter((p) => p.id !== id));
    }
  }

  function addFiles(files: Iterable<File>) {
    const list = [...files];
    // Only Fusion takes several images. Elsewhere (Edit, or Text, which a reference turns into
    // Edit) the first file is kept and the person is told, instead of the last upload to finish
    // silently replacing the others.
    const kept = mode === 'fusion' ? list : list.slice(0, 1);
    const left = list.slice(kept.length).map((f) => f.name || 'Pasted image');
    setNotice(
      left.length > 0
        ? `Edit takes one image: kept ${kept[0]?.name || 'the first'}, left out ${left.join(', ')}.`
        : undefined,
    );
    for (const file of kept) void track(file.name || 'Pasted image', () => uploadFile(file));
  }

  // Paste anywhere on the page: images become references; text pastes keep working as usual.
  const addFilesRef = useRef(addFiles);
  addFilesRef.current = addFiles;
  useEffect(() => {
    const onPaste = (event: ClipboardEvent) => {
      const files = [...(event.clipboardData?.files ?? [])].filter((f) => f.type.startsWith('image/'));
      if (files.length === 0) return;
      event.preventDefault();
      addFilesRef.current(files);
    };
    window.addEventListener('paste', onPaste);
    return () => window.removeEventListener('paste', onPaste);
  }, []);
  return { pending, error, setError, notice, track, addFiles };
}

/** The chosen references (each with Remove) and the uploads under way. */
function ReferenceList({
  references,
  pending,
  mode,
  onRemove,
}: {
  references: DraftReference[];
  pending: Pending[];
  mode: string;
  onRemove: (url: string) => void;
}) {
  return (
    <ul className="ref-list" aria-label="Chosen reference images">
      {references.map((reference) => (
        <li key={reference.url} className={mode === 'text' ? 'ref unused' : 'ref'}>
          <img src={reference.url} alt={`Reference: ${reference.name}`} />
          <span className="ref-name" title={reference.name}>
            {reference.name}
            {reference.bytes ? <span className="muted"> · {formatBytes(reference.bytes)}</span> : null}
          </span>
          <button
            type="button"
            className="icon-button ref-remove"
            onClick={() => onRemove(reference.url)}
            aria-label={`Remove reference ${reference.name}`}
          >
            <CloseIcon />
          </button>
        </li>
      ))}
      {pending.map((p) => (
        <li key={p.id} className="ref pending" aria-live="polite">
          <div className="placeholder shimmer" />
          <span className="ref-name">Uploading {p.name}…</span>
        </li>
      ))}
    </ul>
  );
}

/** "From a link": an http(s) image link, fetched and re-hosted by Atelier. */
function UrlRow({
  url,
  setUrl,
  track,
  setError,
  onAdded,
}: {
  url: string;
  setUrl: (url: string) => void;
  track: (name: string, work: () => Promise<DraftReference>) => Promise<boolean>;
  setError: (error: string) => void;
  onAdded: () => void;
}) {
  const id = useId();
  const submitUrl = async () => {
    const value = url.trim();
    if (!/^https?:\/\/\S+$/i.test(value)) {
      setError('Enter an http(s) link to an image');
      return;
    }
    if (await track(value, () => uploadUrl(value))) {
      setUrl('');
      onAdded();
    }
  };
  return (
    <div className="row url-row">
      <label htmlFor={id} className="visually-hidden">
        Image link
      </label>
      <input
        id={id}
        type="url"
        inputMode="url"
        placeholder="https://example.com/photo.jpg"
        value={url}
        onChange={(event) => setUrl(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') {
            event.preventDefault();
            void submitUrl();
          }
        }}
        // biome-ignore lint/a11y/noAutofocus: the field appears because the person just asked for it.
        autoFocus
      />
      <button type="button" className="button" onClick={submitUrl}>
        Add
      </button>
    </div>
  );
}
