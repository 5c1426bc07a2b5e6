import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { NotFound } from '../../base/domain/errors.js';
import type { BlobStore } from '../../infra/blobs/blob-store.js';
import { extensionOf } from '../../infra/blobs/blob-store.js';
import type { Db } from '../../infra/store/database.js';
import { createDownloadReads, type DownloadFile, type PageCursor } from '../read-models/index.js';
import { addFileEntry, metadataOf, stemOf } from './zip-download.js';

/**
 * An account's export (issue 47): every result of its works and every upload, then metadata.json,
 * as one streamed ZIP. The files are read from the store a page at a time, the next page when the
 * archive reaches the last file of the one before; metadata.json, the last entry, is written from a
 * second pass over the same pages. So a node holds two pages of rows and one chunk of one file, plus
 * the ZIP's central directory (a record per file, about 580 bytes of heap each, written at the end).
 */

/** Files read from the store at once. */
export const EXPORT_PAGE = 200;

/** A file's name in the export: `works/` or `uploads/`, its prompt or name, its asset id (unique). */
export function exportName(file: DownloadFile): string {
  const folder = file.source === 'upload' ? 'uploads' : 'works';
  return `${folder}/${stemOf(file)}-${file.assetId}.${extensionOf(file.contentType)}`;
}

/** The export's own name: `atelier-export-<account id>-<date>.zip`. */
export function exportZipName(accountId: string, now: number): string {
  return `atelier-export-${accountId}-${new Date(now).toISOString().slice(0, 10)}.zip`;
}

export function createAccountExport(deps: {
  blobs: BlobStore;
  db: Db;
  /** Files read from the store at once (EXPORT_PAGE; tests take smaller pages). */
  pageSize?: number;
}) {
  const reads = createDownloadReads(deps.db);
  const size = deps.pageSize ?? EXPORT_PAGE;
  const page = (accountId: string, after: PageCursor | null, until: number) =>
    reads.page(accountId, after, until, size);
  const cursorOf = (files: DownloadFile[]): PageCursor | null => {
    const last = files.at(-1);
    return last ? { createdAt: last.createdAt, assetId: last.assetId } : null;
  };

  /** metadata.json, written page by page from the store (the files stored up to `until`). */
  function metadataStream(account: AccountHead, until: number, now: number): Readable {
    async function* chunks() {
      const head = { created_at: new Date(now).toISOString(), account };
      yield `${JSON.stringify(head, null, 2).slice(0, -2)},\n  "files": [`;
      let first = true;
      for (let after: PageCursor | null = null; ; ) {
        const files = await page(account.id, after, until);
        for (const file of files) {
          yield `${first ? '' : ','}\n    ${JSON.stringify(metadataOf(file, exportName(file)))}`;
          first = false;
        }
        after = cursorOf(files);
        if (files.length < size) break;
      }
      yield `${first ? '' : '\n  '}]\n}\n`;
    }
    return Readable.from(chunks(), { objectMode: false });
  }

  return {
    /**
     * The account's export: NotFound (before anything is written) when there is no such account.
     * The files are those stored when it began; the stream fails (the response is cut short) when a
     * file cannot be read midway, never a silent gap.
     */
    async open(accountId: string, now: number): Promise<{ name: string; stream: Readable }> {
      const account = await accountHead(deps.db, accountId);
      const zip = new ZipFile();
      const stream = zip.outputStream as Readable;
      const fail = (error: Error) => stream.destroy(error);
      zip.on('error', fail);
      const addPage = (after: PageCursor | null): void => {
        page(accountId, after, now).then((files) => {
          files.forEach((file, index) => {
            // Reaching the page's last file loads the next page (the archive then waits for it).
            const next = index === files.length - 1 && files.length === size;
            addFileEntry(
              zip,
              deps.blobs,
              exportName(file),
              file,
              next ? () => addPage(cursorOf(files)) : undefined,
            );
          });
          if (files.length < size) {
            zip.addReadStream(metadataStream(account, now, now), 'metadata.json', { mtime: new Date(now) });
            zip.end();
          }
        }, fail);
      };
      addPage(null);
      return { name: exportZipName(accountId, now), stream };
    },
  };
}

export type AccountExport = ReturnType<typeof createAccountExport>;

/** The account as metadata.json names it. */
interface AccountHead {
  id: string;
  email: string;
  tier: string;
  created_at: string;
}

async function accountHead(db: Db, accountId: string): Promise<AccountHead> {
  const row = await db
    .selectFrom('accounts')
    .select(['id', 'email', 'tier', 'created_at'])
    .where('id', '=', accountId)
    .where('erasing_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw new NotFound('No such account');
  return {
    id: row.id,
    email: row.email,
    tier: row.tier,
    created_at: new Date(Number(row.created_at)).toISOString(),
  };
}
