/**
 * The server's vocabulary the website's features use (task statuses, money, tiers, asset kinds): one
 * door to `src/base/domain`, so only the app-wide layer reaches into the server's code beside the
 * wire shapes of the contract. (`.js` specifiers: the features' unit tests load it under Node's type
 * stripping.)
 */
export type { AssetKind } from '../../../src/base/domain/asset-kinds.js';
export { formatUsd, MICROS_PER_UNIT, parseUsd } from '../../../src/base/domain/money.js';
export { isFinalStatus, TASK_STATUSES } from '../../../src/base/domain/task-status.js';
export { TIERS } from '../../../src/base/domain/tiers.js';
