import type { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { ZipMetadata, ZipMetadataFile } from '../../base/contract/curation.js';
import type { BlobStore } from '../../infra/blobs/blob-store.js';
import { extensionOf } from '../../infra/blobs/blob-store.js';
import type { Db } from '../../infra/store/database.js';
import { createDownloadReads, type DownloadFile } from '../read-models/index.js';

/**
 * Select-many's "Download as ZIP" (issue 30): a selection's original files and a metadata.json,
 * written as a stream. Files are opened one at a time as the archive reaches them and piped through
 * (stored, not recompressed: images are compressed already), so a node holds one chunk of one file
 * at a time whatever the selection's size; the HTTP edge sends the output as it is written.
 */

/** Most characters of a name taken from a prompt (before `-2` and the extension). */
const NAME_LENGTH = 60;

/** A prompt as a file name's stem: ASCII letters and digits, lower case, words joined by `-`. */
export function slugOf(text: string): string {
  const words = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .match(/[a-z0-9]+/g);
  let slug = '';
  for (const word of words ?? []) {
    const next = slug === '' ? word : `${slug}-${word}`;
    if (next.length > NAME_LENGTH) {
      if (slug === '') slug = word.slice(0, NAME_LENGTH);
      break;
    }
    slug = next;
  }
  return slug;
}

/** The stem of a file's name in the ZIP: its prompt, an upload's own name, or what it is. */
export function stemOf(file: DownloadFile): string {
  if (file.prompt !== null) return slugOf(file.prompt) || 'image';
  const named = file.originalName?.replace(/\.[A-Za-z0-9]{1,5}$/, '');
  return (named && slugOf(named)) || 'upload';
}

/** Each file's name in the ZIP, in order: unique ignoring case (`-2`, `-3`…), with its extension. */
export function entryNames(files: DownloadFile[]): string[] {
  const taken = new Set<string>(['metadata.json']);
  return files.map((file) => {
    const stem = stemOf(file);
    const extension = extensionOf(file.contentType);
    let name = `${stem}.${extension}`;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${stem}-${n}.${extension}`;
    taken.add(name.toLowerCase());
    return name;
  });
}

/** The archive's own name: `atelier-<date>-<n files>.zip`. */
export function zipName(now: number, files: number): string {
  return `atelier-${new Date(now).toISOString().slice(0, 10)}-${files}-${files === 1 ? 'file' : 'files'}.zip`;
}

/** The headers of a streamed ZIP download: a file to save, never cached along the way. */
export function zipHeaders(name: string): Record<string, string> {
  return {
    'content-type': 'application/zip',
    'content-disposition': `attachment; filename="${name}"`,
    'cache-control': 'private, no-store',
    'x-content-type-options': 'nosniff',
  };
}

/**
 * Adds a file to the archive, opened only when the archive reaches it (one file open at a time).
 * `onOpen` runs then, before the file is read (the account export loads its next page there).
 */
export function addFileEntry(
  zip: ZipFile,
  blobs: BlobStore,
  name: string,
  file: DownloadFile,
  onOpen?: () => void,
): void {
  zip.addReadStreamLazy(
    name,
    { compress: false, mtime: new Date(file.createdAt), size: file.bytes },
    (callback) => {
      onOpen?.();
      blobs.open(file.blobKey).then(
        (found) =>
          found
            ? callback(null, found.stream)
            : callback(new Error(`blob ${file.blobKey} is missing`), undefined as never),
        (error: unknown) => callback(error, undefined as never),
      );
    },
  );
}

/** What metadata.json says of one file, named `name` in the archive. */
export function metadataOf(file: DownloadFile, name: string): ZipMetadataFile {
  return {
    file: name,
    prompt: file.prompt,
    model: file.model,
    width: file.width,
    height: file.height,
    bytes: file.bytes,
    content_type: file.contentType,
    created_at: new Date(file.createdAt).toISOString(),
    source: file.source,
    mode: file.request?.mode ?? null,
    aspect: file.request?.aspect ?? null,
    aspect_from_reference: file.request?.aspectFromReference ?? null,
    image_size: file.request?.imageSize ?? null,
    image_count: file.request?.imageCount ?? null,
    references: file.request?.references ?? null,
    url: file.url,
    generation_id: file.generationId,
    asset_id: file.assetId,
  };
}

export function createZipDownloads(deps: { blobs: BlobStore; db: Db }) {
  const reads = createDownloadReads(deps.db);
  return {
    /**
     * The ZIP of a selection: NotFound (before anything is written) when an id is not the account's
     * work or asset. The stream fails (and the response is cut short) if a file cannot be read midway.
     */
    async open(
      accountId: string,
      selection: { generationIds: string[]; assetIds: string[] },
      now: number,
    ): Promise<{ name: string; stream: Readable; files: number }> {
      const files = await reads.filesOf(accountId, selection);
      const names = entryNames(files);
      const zip = new ZipFile();
      const metadata: ZipMetadata = { created_at: new Date(now).toISOString(), files: [] };
      files.forEach((file, index) => {
        const name = names[index] ?? `${index}`;
        addFileEntry(zip, deps.blobs, name, file);
        metadata.files.push(metadataOf(file, name));
      });
      zip.addBuffer(Buffer.from(`${JSON.stringify(metadata, null, 2)}\n`), 'metadata.json', {
        mtime: new Date(now),
      });
      zip.end();
      const stream = zip.outputStream as Readable;
      // A file that cannot be read fails the archive: the response is cut, never a silent gap.
      zip.on('error', (error: Error) => stream.destroy(error));
      return { name: zipName(now, files.length), stream, files: files.length };
    },
  };
}

export type ZipDownloads = ReturnType<typeof createZipDownloads>;
