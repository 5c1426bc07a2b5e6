/**
 * A document kept in the store as numbered versions (the model catalog; any operator document
 * shaped the same): the highest version is in force, older ones stay for history. A writer names the
 * version it read; its change becomes the next one only when nobody wrote that one first (the
 * version is the table's primary key: insert-if-absent), so two nodes or two operators never lose
 * each other's change. Every node re-reads the version in force every few seconds
 * (`watchVersions`), one small query while nothing changed.
 */
import type { Kysely } from 'kysely';
import type { DocumentVersionSource, DocumentVersionsTable } from './schema/document-versions.js';
import type { Database } from './schema.js';

export type { DocumentVersionSource };

/** The tables that hold versions of a document (each one's owner names it). */
export type VersionedTable = Exclude<
  { [K in keyof Database]-?: Database[K] extends DocumentVersionsTable ? K : never }[keyof Database],
  undefined
>;

/** One stored version. */
export interface DocumentVersion {
  version: number;
  document: unknown;
  source: DocumentVersionSource;
  fileSha256: string | null;
  createdAt: number;
  createdBy: string;
}

/** A change to store: the next version after `after` (0 when the table is empty). */
export interface NewVersion {
  after: number;
  document: unknown;
  source: DocumentVersionSource;
  fileSha256?: string | null;
  createdBy: string;
  at: number;
}

type Row = DocumentVersionsTable;

const versionOf = (row: Row): DocumentVersion => ({
  version: Number(row.version),
  document: JSON.parse(row.document_json),
  source: row.source,
  fileSha256: row.file_sha256,
  createdAt: Number(row.created_at),
  createdBy: row.created_by,
});

/** The versions of one document, in its table. */
export function createVersionedDocuments(db: Kysely<Database>, table: VersionedTable) {
  // Every versioned table has the one shape: the queries are written once, over that shape.
  const store = db as unknown as Kysely<{ versions: Row }>;
  const versions = table as unknown as 'versions';
  const newest = () => store.selectFrom(versions).selectAll().orderBy('version', 'desc');
  return {
    /** The version in force (the highest), or undefined when none was ever stored. */
    async current(): Promise<DocumentVersion | undefined> {
      const row = await newest().limit(1).executeTakeFirst();
      return row && versionOf(row);
    },
    /** The number of the version in force (0: none): the cheap read each node repeats. */
    async currentNumber(): Promise<number> {
      const row = await store
        .selectFrom(versions)
        .select((eb) => eb.fn.max('version').as('version'))
        .executeTakeFirst();
      return Number(row?.version ?? 0);
    },
    async get(version: number): Promise<DocumentVersion | undefined> {
      const row = await store
        .selectFrom(versions)
        .selectAll()
        .where('version', '=', version)
        .executeTakeFirst();
      return row && versionOf(row);
    },
    /** The newest versions first, at most `limit`. */
    async list(limit: number): Promise<DocumentVersion[]> {
      return (await newest().limit(limit).execute()).map(versionOf);
    },
    /** The newest version read from a file (what a start compares its file with). */
    async lastFromFile(): Promise<DocumentVersion | undefined> {
      const row = await newest().where('source', '=', 'file').limit(1).executeTakeFirst();
      return row && versionOf(row);
    },
    /**
     * Stores `change` as version `after + 1`; undefined when that version was already written (by
     * another node or operator): the caller reads the version in force again.
     */
    async append(change: NewVersion): Promise<DocumentVersion | undefined> {
      const row: Row = {
        version: change.after + 1,
        document_json: JSON.stringify(change.document),
        source: change.source,
        file_sha256: change.fileSha256 ?? null,
        created_at: change.at,
        created_by: change.createdBy,
      };
      const written = await store
        .insertInto(versions)
        .values(row)
        .onConflict((oc) => oc.column('version').doNothing())
        .executeTakeFirst();
      return Number(written.numInsertedOrUpdatedRows ?? 0) > 0 ? versionOf(row) : undefined;
    },
  };
}

export type VersionedDocuments = ReturnType<typeof createVersionedDocuments>;

/**
 * Re-reads the version in force every `intervalMs` and hands a newer one to `apply` (never an
 * older one, never twice). `check()` does one reading now (after an edit on this node, so it is in
 * force here at once). A failed reading is reported and tried again at the next tick.
 */
export function watchVersions(options: {
  documents: Pick<VersionedDocuments, 'currentNumber' | 'current'>;
  intervalMs: number;
  /** The version this node already has in force. */
  initial: number;
  apply(version: DocumentVersion): void | Promise<void>;
  onError(error: unknown): void;
}) {
  let seen = options.initial;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const read = async () => {
    const number = await options.documents.currentNumber();
    if (number <= seen) return;
    const version = await options.documents.current();
    if (!version || version.version <= seen) return;
    await options.apply(version);
    seen = version.version;
  };
  const check = (): Promise<void> => {
    // One reading at a time: a tick during a reading joins it.
    running ??= read()
      .catch(options.onError)
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void check().finally(schedule), options.intervalMs);
    timer.unref();
  };
  schedule();
  return {
    check,
    /** The version in force here. */
    seen: () => seen,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
