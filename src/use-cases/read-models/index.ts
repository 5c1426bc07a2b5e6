// The read-models use case's face: everything other folders may use from it, and nothing else.
// Files outside src/use-cases/read-models/ import from this file only (src/architecture.test.ts holds it).

export type { CreationReads } from './creations.js';
export { createCreationReads, listPendingCards } from './creations.js';
export type { DownloadFile, PageCursor } from './downloads.js';
export { createDownloadReads } from './downloads.js';
export type { LibraryReads } from './library.js';
export { createLibraryReads } from './library.js';
export type { MarkedWorks } from './marked-works.js';
export { createMarkedWorks } from './marked-works.js';
export type { PagePlan, TaskLog } from './task-log.js';
export { createTaskLog } from './task-log.js';
