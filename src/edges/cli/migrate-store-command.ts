import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createBlobStore } from '../../blob-storage.js';
import { loadConfig, loadDotEnv } from '../../infra/config/config.js';
import { isPostgresUrl, openDatabase } from '../../infra/store/database.js';
import type { CliIo } from './cli-io.js';
import { requiredOption as required, UsageError } from './cli-usage.js';
import { requireExistingDatabase } from './existing-store.js';
import { migrateStore } from './migrate-store.js';

/** `migrate-store`: copies this install's database (and blobs, with --storage) into a cluster's stores. */
export async function migrateStoreCommand(args: string[], io: CliIo): Promise<number> {
  const { out } = io;
  const { values } = parseArgs({
    args,
    options: { to: { type: 'string' }, storage: { type: 'string' } },
    strict: true,
    allowPositionals: false,
  });
  const to = required(values.to, 'to');
  if (!isPostgresUrl(to)) throw new UsageError('--to must be a postgres:// URL');
  if (io.env === process.env) loadDotEnv();
  const sourceConfig = loadConfig(io.env);
  if (isPostgresUrl(sourceConfig.databaseUrl) || sourceConfig.storage.kind !== 'file') {
    throw new UsageError(
      'the source must be a single-node install: SQLite and file storage (ATELIER_DATA_DIR)',
    );
  }
  requireExistingDatabase(sourceConfig, io.env);
  const targetConfig = loadConfig({
    ...io.env,
    ATELIER_DATABASE_URL: to,
    ATELIER_STORAGE: values.storage ?? 'file',
  });
  const source = await openDatabase(sourceConfig.databaseUrl);
  const target = await openDatabase(to);
  try {
    const report = await migrateStore({
      source: { db: source, config: sourceConfig },
      target: { db: target, blobs: values.storage ? await createBlobStore(targetConfig) : undefined },
      progress: out,
    });
    if (!values.storage) out('blobs: not copied (no --storage); they stay under this data dir');
    out(
      `Every node of the cluster needs this install's master key (it seals upstream keys): set ` +
        `ATELIER_MASTER_KEY to the contents of ${join(sourceConfig.dataDir, 'master.key')}, and keep ` +
        'ATELIER_PUBLIC_BASE_URL as it was (result URLs are stored with it).',
    );
    out(report.complete ? 'migrate-store: complete' : 'migrate-store: INCOMPLETE (see the counts above)');
    return report.complete ? 0 : 1;
  } finally {
    await source.destroy();
    await target.destroy();
  }
}
