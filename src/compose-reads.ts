import { createCuration } from './capabilities/curation/index.js';
import type { TasksRepository } from './capabilities/tasks/index.js';
import type { CoreResources } from './core-resources.js';
import { createAccountExport, createZipDownloads } from './use-cases/downloads/index.js';
import type { GenerationsRepository } from './use-cases/generations/index.js';
import {
  createCreationReads,
  createLibraryReads,
  createMarkedWorks,
  createTaskLog,
} from './use-cases/read-models/index.js';

/** The read models: generations with their tasks (history, saved works), assets with their generations (library). */
export function buildReadModels(
  { db, clock, ids, blobs }: CoreResources,
  parts: { generationsRepository: GenerationsRepository; tasks: TasksRepository },
) {
  const { generationsRepository: works, tasks } = parts;
  const curation = createCuration({ db, clock, ids, works });
  const plainCreations = createCreationReads({ generations: works, tasks, db });
  return {
    /** History pages and saved works: generations with their tasks (read model). */
    creations: createMarkedWorks(plainCreations, curation),
    /** The website's asset library: assets with their generations' prompts (read model). */
    library: createLibraryReads(db),
    /** Stars and collections of works (a mark moves the account's history version). */
    curation,
    /** Works and collections as one streamed ZIP (the API and the website). */
    zipDownloads: createZipDownloads({ blobs, db }),
    /** An account's works and uploads as one streamed ZIP (its owner, the console, the CLI). */
    accountExport: createAccountExport({ blobs, db }),
    /** The operator's task log: every task of every account, and one task's life (read model). */
    taskLog: createTaskLog({ db, clock }),
  };
}
