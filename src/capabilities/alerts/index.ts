// The alerts capability's face: everything other folders may use from it, and nothing else.
// Files outside src/capabilities/alerts/ import from this file only (src/architecture.test.ts holds it).
export type { BreakerChange, DetectionReads, KeyTakenOut, TaskEnded } from './alert-detection.js';
export { alertBody } from './alert-messages.js';
export type { AlertsService } from './alerts-service.js';
export { createAlertsService } from './alerts-service.js';
