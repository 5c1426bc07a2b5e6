import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, copyFile, mkdir, open, readFile, rename, rm, stat as statFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type BlobStat, type BlobStore, contentTypeOfKey, isBlobKey } from './blob-store.js';

/** Blobs as files under one directory; writes go to a temp name and are renamed into place. */
export function createDiskBlobStore({ root }: { root: string }): BlobStore {
  function pathOf(key: string): string {
    // Security: keys come from URLs; only the strict key grammar ever reaches the file system.
    if (!isBlobKey(key)) throw new Error(`invalid blob key ${JSON.stringify(key)}`);
    return join(root, key);
  }

  async function stat(key: string): Promise<BlobStat | undefined> {
    if (!isBlobKey(key)) return undefined;
    try {
      const s = await statFile(pathOf(key));
      if (!s.isFile()) return undefined;
      return {
        bytes: s.size,
        contentType: contentTypeOfKey(key),
        etag: `"${s.size.toString(36)}-${Math.floor(s.mtimeMs).toString(36)}"`,
        modifiedAt: s.mtimeMs,
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  // Directories this store made (or found): a put into one skips the mkdir (a round trip through
  // the thread pool per result, in a burst of a thousand). One removed since is made again.
  const madeDirectories = new Set<string>();
  async function makeDirectory(directory: string): Promise<void> {
    // Security: results and uploads are the accounts' own; only this service's user may read them.
    await mkdir(directory, { recursive: true, mode: 0o700 });
    madeDirectories.add(directory);
  }

  /**
   * The temp file written; answers its close, still running: the rename need not wait for it (a
   * round trip through the thread pool less on every result's way to its answer).
   */
  async function writeTemp(
    temp: string,
    source: Parameters<BlobStore['put']>[1],
  ): Promise<{ closed: Promise<void> }> {
    if (!Buffer.isBuffer(source)) {
      await copyFile(source.path, temp);
      await chmod(temp, 0o600);
      return { closed: Promise.resolve() };
    }
    const file = await open(temp, 'w', 0o600);
    try {
      await file.writeFile(source);
    } catch (error) {
      await file.close();
      throw error;
    }
    return { closed: file.close() };
  }

  return {
    async put(key, source) {
      const target = pathOf(key);
      const directory = dirname(target);
      if (!madeDirectories.has(directory)) await makeDirectory(directory);
      const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
      try {
        let written: { closed: Promise<void> };
        try {
          written = await writeTemp(temp, source);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
          // The directory was removed since it was made (or the source is gone: the retry says so).
          await makeDirectory(directory);
          written = await writeTemp(temp, source);
        }
        await Promise.all([rename(temp, target), written.closed]);
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
    },
    async get(key) {
      if (!isBlobKey(key)) return undefined;
      try {
        return await readFile(pathOf(key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    async open(key) {
      const s = await stat(key);
      if (!s) return undefined;
      return { stream: createReadStream(pathOf(key)), stat: s };
    },
    stat,
    async delete(key) {
      if (!isBlobKey(key)) return;
      await rm(pathOf(key), { force: true });
    },
  };
}
