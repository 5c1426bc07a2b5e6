/**
 * The catalog at run time (issue 43): the document lives in the store as versions
 * (`catalog_versions`, migration 0064), the highest in force on every node. The last change wins:
 * an edit (admin API, console) adds a version; a start whose catalog file differs from the last
 * version read from a file adds that file as a version; an unchanged file never overrides an edit.
 * Every node re-reads the version in force every few seconds and swaps its catalog (live-catalog.ts).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import { Conflict, InvalidInput } from '../../base/domain/errors.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { Db } from '../../infra/store/database.js';
import {
  createVersionedDocuments,
  type DocumentVersion,
  type DocumentVersionSource,
  watchVersions,
} from '../../infra/store/versioned-documents.js';
import { type Catalog, type CatalogSource, parseCatalog } from './catalog.js';
import { createLiveCatalog } from './live-catalog.js';

/** The blocks that define providers, built once at a start: only the catalog file changes them. */
const PROVIDER_BLOCKS = ['upstreams', 'falEndpoints'] as const;

/** A change to the document: the version it was made on (409 when another came first). */
export interface CatalogEdit {
  expectedVersion: number;
  document: unknown;
  source: Exclude<DocumentVersionSource, 'file'>;
  createdBy: string;
}

export interface CatalogVersionsOptions {
  db: Db;
  clock: Clock;
  logger: Logger;
  knownProviders: readonly string[];
  /** How often each node re-reads the version in force (ATELIER_CONFIG_REFRESH_MS). */
  refreshMs: number;
  /** Called after a swap, with the catalog now in force (providers' settings, capacity call-backs). */
  onSwap?(catalog: Catalog): void;
}

/** Validates a document as the loader does: its messages are the loader's. */
function validated(document: unknown, knownProviders: readonly string[], label: string): Catalog {
  try {
    return parseCatalog(document, knownProviders, label);
  } catch (error) {
    throw new InvalidInput((error as Error).message, 'catalog');
  }
}

const blockOf = (document: unknown, key: string) =>
  typeof document === 'object' && document !== null ? (document as Record<string, unknown>)[key] : undefined;

/**
 * Seeds or imports the file at a start (race-free between nodes starting at once), puts the
 * version in force on this node, and watches for newer ones.
 */
export async function startCatalogVersions(options: CatalogVersionsOptions, file: CatalogSource) {
  const { db, clock, logger, knownProviders } = options;
  const documents = createVersionedDocuments(db, 'catalog_versions');
  // The file must be valid (as before the store held the catalog): a start with a broken file fails.
  parseCatalog(file.document, knownProviders, file.label);
  const imported = await importFile(documents, file, clock.now());
  const first = await documents.current();
  if (!first) throw new Error('catalog_versions: no version after seeding');
  if (imported)
    logger.info({ version: imported.version, file: file.label }, 'catalog: the file is the version in force');
  const live = createLiveCatalog(
    parseCatalog(first.document, knownProviders, `stored catalog version ${first.version}`),
    first,
  );
  options.onSwap?.(live);
  const watch = watchVersions({
    documents,
    intervalMs: options.refreshMs,
    initial: first.version,
    apply(version) {
      const catalog = parseCatalog(
        version.document,
        knownProviders,
        `stored catalog version ${version.version}`,
      );
      live.swap(catalog, version);
      options.onSwap?.(live);
      logger.info({ version: version.version, source: version.source }, 'catalog: a new version is in force');
    },
    onError: (error) => logger.error({ err: error }, 'catalog: the version in force could not be read'),
  });
  return {
    catalog: live,
    /** The version the file added at this start (seeded or imported), if it did. */
    imported,
    /** The newest versions first (their documents included). */
    history: (limit: number) => documents.list(limit),
    get: (version: number) => documents.get(version),
    /** Validates a document as the loader does (InvalidInput with its messages). */
    validate: (document: unknown) => validated(document, knownProviders, 'catalog'),
    /** Stores an edit as the next version and puts it in force here at once; the other nodes follow. */
    async edit(change: CatalogEdit): Promise<DocumentVersion> {
      validated(change.document, knownProviders, 'catalog');
      for (const key of PROVIDER_BLOCKS)
        if (!isDeepStrictEqual(blockOf(change.document, key), blockOf(live.inForce.document, key)))
          throw new InvalidInput(
            `catalog: ${key} defines providers, which are built at a start: change it in the catalog file (ATELIER_CATALOG) and restart`,
            key,
          );
      const current = await documents.currentNumber();
      const stored =
        current === change.expectedVersion
          ? await documents.append({ ...change, after: current, at: clock.now() })
          : undefined;
      if (!stored)
        throw new Conflict(
          `the catalog changed since version ${change.expectedVersion} (now ${Math.max(current, change.expectedVersion + 1)}): read it again and redo the change`,
        );
      await watch.check();
      return stored;
    },
    /** Reads the version in force now (a node that must not wait for its next tick). */
    refresh: () => watch.check(),
    stop: () => watch.stop(),
  };
}

/**
 * Version 1 from the file when the store has none; a new version when the file differs from the
 * last one read from a file; nothing otherwise. Two nodes starting at once: one writes, the other
 * finds the version taken and reads again (it then finds the file already imported).
 */
async function importFile(
  documents: ReturnType<typeof createVersionedDocuments>,
  file: CatalogSource,
  at: number,
): Promise<DocumentVersion | undefined> {
  for (let tries = 0; tries < 5; tries++) {
    const current = await documents.currentNumber();
    if (current > 0 && (await documents.lastFromFile())?.fileSha256 === file.sha256) return undefined;
    const stored = await documents.append({
      after: current,
      document: file.document,
      source: 'file',
      fileSha256: file.sha256,
      createdBy: `file:${file.label}`,
      at,
    });
    if (stored) return stored;
  }
  throw new Error('catalog_versions: could not store the catalog file (too many concurrent writers)');
}

export type CatalogVersions = Awaited<ReturnType<typeof startCatalogVersions>>;
